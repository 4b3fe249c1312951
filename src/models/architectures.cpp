// The architectures, as data (see architecture.hpp). Field names and defaults from transformers'
// configuration_distilbert.py / configuration_bert.py / configuration_gpt2.py /
// configuration_llama.py / configuration_qwen2.py; tensor names from the models' state_dict in
// modeling_distilbert.py (DistilBertModel: embeddings, transformer.layer.N), modeling_bert.py
// (BertModel: embeddings, encoder.layer.N, pooler), modeling_gpt2.py (GPT2LMHeadModel:
// transformer.{wte, wpe, h.N, ln_f}, lm_head), modeling_llama.py and modeling_qwen2.py
// (LlamaForCausalLM / Qwen2ForCausalLM: model.{embed_tokens, layers.N, norm}, lm_head).
#include "models/architecture.hpp"

namespace aw {
namespace {

using M = ModelConfig;

// ACT2FN's names for the activations the BERT family is tested with.
const std::vector<std::pair<const char*, Activation>> kEncoderActivations = {
    {"gelu", Activation::Gelu},
    {"gelu_new", Activation::GeluTanh},
    {"gelu_pytorch_tanh", Activation::GeluTanh},
    {"relu", Activation::Relu},
};

// The task heads (issue 20), each chosen by config.json's architectures[0] (Head::classes), as
// modeling_distilbert.py's DistilBertFor* classes compute them after the base model (dropout is
// the identity in eval mode):
//   ForMaskedLM                vocab_projector(LayerNorm(act(vocab_transform(h))))   every token;
//                              vocab_projector's weight tied to the word embeddings, its bias its own
//   ForSequenceClassification  classifier(ReLU(pre_classifier(h[:, 0])))
//   ForTokenClassification     classifier(h)                                         every token
//   ForQuestionAnswering       qa_outputs(h) -> (start_logits, end_logits)           every token
const std::vector<Head> kDistilBertHeads = {
    {"masked-lm",
     {dense_step("vocab_transform.weight", "vocab_transform.bias", HeadSize::Hidden), model_activation_step(),
      norm_step(NormKind::LayerNorm, "vocab_layer_norm.weight", "vocab_layer_norm.bias"),
      dense_step("vocab_projector.weight", "vocab_projector.bias", HeadSize::Vocab, true)},
     HeadInput::Tokens,
     false,
     false,
     {"DistilBertForMaskedLM"}},
    {"sequence-classification",
     {dense_step("pre_classifier.weight", "pre_classifier.bias", HeadSize::Hidden), activation_step(Activation::Relu),
      dense_step("classifier.weight", "classifier.bias", HeadSize::Labels)},
     HeadInput::FirstToken,
     false,
     false,
     {"DistilBertForSequenceClassification"}},
    {"token-classification",
     {dense_step("classifier.weight", "classifier.bias", HeadSize::Labels)},
     HeadInput::Tokens,
     false,
     false,
     {"DistilBertForTokenClassification"}},
    {"question-answering",
     {dense_step("qa_outputs.weight", "qa_outputs.bias", HeadSize::Labels)},
     HeadInput::Tokens,
     false,
     false,
     {"DistilBertForQuestionAnswering"}},
};

// modeling_bert.py's task heads:
//   ForMaskedLM, ForPreTraining's   BertLMPredictionHead: decoder(LayerNorm(act(transform.dense(h)))),
//   masked-LM half                  the decoder's weight tied to the word embeddings, its bias
//                                   cls.predictions.bias (= decoder.bias)               every token
//   ForSequenceClassification       classifier(pooler_output)
//   ForTokenClassification          classifier(h)                                       every token
//   ForQuestionAnswering            qa_outputs(h) -> (start_logits, end_logits)         every token
const std::vector<Head> kBertHeads = {
    {"masked-lm",
     {dense_step("cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias", HeadSize::Hidden),
      model_activation_step(),
      norm_step(NormKind::LayerNorm, "cls.predictions.transform.LayerNorm.weight",
                "cls.predictions.transform.LayerNorm.bias"),
      dense_step("cls.predictions.decoder.weight", "cls.predictions.bias|cls.predictions.decoder.bias", HeadSize::Vocab,
                 true)},
     HeadInput::Tokens,
     false,
     false,
     {"BertForMaskedLM", "BertForPreTraining"}},
    {"sequence-classification",
     {dense_step("classifier.weight", "classifier.bias", HeadSize::Labels)},
     HeadInput::Pooled,
     false,
     false,
     {"BertForSequenceClassification"}},
    {"token-classification",
     {dense_step("classifier.weight", "classifier.bias", HeadSize::Labels)},
     HeadInput::Tokens,
     false,
     false,
     {"BertForTokenClassification"}},
    {"question-answering",
     {dense_step("qa_outputs.weight", "qa_outputs.bias", HeadSize::Labels)},
     HeadInput::Tokens,
     false,
     false,
     {"BertForQuestionAnswering"}},
};

// DistilBertModel: post-norm TransformerBlock (sa_layer_norm, output_layer_norm), learned
// positions, no token types; LayerNorm eps fixed at 1e-12 in modeling_distilbert.py.
const Architecture kDistilBert{
    "distilbert",
    "distilbert",
    {
        {"vocab_size", &M::vocab_size, 30522},
        {"dim", &M::hidden_size, 768},
        {"n_layers", &M::num_layers, 6},
        {"n_heads", &M::num_heads, 12},
        {"hidden_dim", &M::intermediate_size, 3072},
        {"max_position_embeddings", &M::max_positions, 512},
    },
    nullptr,
    1e-12,
    "activation",
    "gelu",
    kEncoderActivations,
    {},
    NormKind::LayerNorm,
    NormPlacement::Post,
    false,
    false,
    false,
    {
        {"embeddings.word_embeddings.weight", Param::WordEmbeddings},
        {"embeddings.position_embeddings.weight", Param::PositionEmbeddings},
        {"embeddings.LayerNorm.weight", Param::EmbeddingNormWeight},
        {"embeddings.LayerNorm.bias", Param::EmbeddingNormBias},
        {"transformer.layer.{}.attention.q_lin.weight", Param::QkvWeight, Part::Query},
        {"transformer.layer.{}.attention.k_lin.weight", Param::QkvWeight, Part::Key},
        {"transformer.layer.{}.attention.v_lin.weight", Param::QkvWeight, Part::Value},
        {"transformer.layer.{}.attention.q_lin.bias", Param::QkvBias, Part::Query},
        {"transformer.layer.{}.attention.k_lin.bias", Param::QkvBias, Part::Key},
        {"transformer.layer.{}.attention.v_lin.bias", Param::QkvBias, Part::Value},
        {"transformer.layer.{}.attention.out_lin.weight", Param::OutWeight},
        {"transformer.layer.{}.attention.out_lin.bias", Param::OutBias},
        {"transformer.layer.{}.sa_layer_norm.weight", Param::AttentionNormWeight},
        {"transformer.layer.{}.sa_layer_norm.bias", Param::AttentionNormBias},
        {"transformer.layer.{}.ffn.lin1.weight", Param::MlpInWeight},
        {"transformer.layer.{}.ffn.lin1.bias", Param::MlpInBias},
        {"transformer.layer.{}.ffn.lin2.weight", Param::MlpOutWeight},
        {"transformer.layer.{}.ffn.lin2.bias", Param::MlpOutBias},
        {"transformer.layer.{}.output_layer_norm.weight", Param::MlpNormWeight},
        {"transformer.layer.{}.output_layer_norm.bias", Param::MlpNormBias},
    },
    kDistilBertHeads,
    "tie_word_embeddings",
    true,
};

// BertModel: post-norm BertLayer (attention.output.LayerNorm, output.LayerNorm), learned absolute
// positions, token types, the optional pooler (add_pooling_layer). Relative position embeddings
// and the decoder (cross-attention) forms are not implemented.
const Architecture kBert{
    "bert",
    "bert",
    {
        {"vocab_size", &M::vocab_size, 30522},
        {"hidden_size", &M::hidden_size, 768},
        {"num_hidden_layers", &M::num_layers, 12},
        {"num_attention_heads", &M::num_heads, 12},
        {"intermediate_size", &M::intermediate_size, 3072},
        {"max_position_embeddings", &M::max_positions, 512},
        {"type_vocab_size", &M::type_vocab_size, 2},
    },
    "layer_norm_eps",
    1e-12,
    "hidden_act",
    "gelu",
    kEncoderActivations,
    {{"position_embedding_type", "\"absolute\"", false}, {"is_decoder", "false"}, {"add_cross_attention", "false"}},
    NormKind::LayerNorm,
    NormPlacement::Post,
    false,
    false,
    false,
    {
        {"embeddings.word_embeddings.weight", Param::WordEmbeddings},
        {"embeddings.position_embeddings.weight", Param::PositionEmbeddings},
        {"embeddings.token_type_embeddings.weight", Param::TokenTypeEmbeddings},
        {"embeddings.LayerNorm.weight", Param::EmbeddingNormWeight},
        {"embeddings.LayerNorm.bias", Param::EmbeddingNormBias},
        {"pooler.dense.weight", Param::PoolerWeight, Part::Whole, true},
        {"pooler.dense.bias", Param::PoolerBias, Part::Whole, true},
        {"encoder.layer.{}.attention.self.query.weight", Param::QkvWeight, Part::Query},
        {"encoder.layer.{}.attention.self.key.weight", Param::QkvWeight, Part::Key},
        {"encoder.layer.{}.attention.self.value.weight", Param::QkvWeight, Part::Value},
        {"encoder.layer.{}.attention.self.query.bias", Param::QkvBias, Part::Query},
        {"encoder.layer.{}.attention.self.key.bias", Param::QkvBias, Part::Key},
        {"encoder.layer.{}.attention.self.value.bias", Param::QkvBias, Part::Value},
        {"encoder.layer.{}.attention.output.dense.weight", Param::OutWeight},
        {"encoder.layer.{}.attention.output.dense.bias", Param::OutBias},
        {"encoder.layer.{}.attention.output.LayerNorm.weight", Param::AttentionNormWeight},
        {"encoder.layer.{}.attention.output.LayerNorm.bias", Param::AttentionNormBias},
        {"encoder.layer.{}.intermediate.dense.weight", Param::MlpInWeight},
        {"encoder.layer.{}.intermediate.dense.bias", Param::MlpInBias},
        {"encoder.layer.{}.output.dense.weight", Param::MlpOutWeight},
        {"encoder.layer.{}.output.dense.bias", Param::MlpOutBias},
        {"encoder.layer.{}.output.LayerNorm.weight", Param::MlpNormWeight},
        {"encoder.layer.{}.output.LayerNorm.bias", Param::MlpNormBias},
    },
    kBertHeads,
    "tie_word_embeddings",
    true,
};

// GPT2LMHeadModel: pre-norm GPT2Block (ln_1, ln_2), learned positions, c_attn fused q/k/v and
// every Conv1D weight stored (in, out), gelu_new; ln_f, then lm_head tied to wte
// (tie_word_embeddings defaults to true). Cross-attention and the attention-scaling variants are
// not implemented.
const Architecture kGpt2{
    "gpt2",
    "transformer",
    {
        {"vocab_size", &M::vocab_size, 50257},
        {"n_embd", &M::hidden_size, 768},
        {"n_layer", &M::num_layers, 12},
        {"n_head", &M::num_heads, 12},
        {"n_inner", &M::intermediate_size, kDerived},
        {"n_positions", &M::max_positions, 1024},
    },
    "layer_norm_epsilon",
    1e-5,
    "activation_function",
    "gelu_new",
    kEncoderActivations,
    {{"scale_attn_weights", "true", false},
     {"scale_attn_by_inverse_layer_idx", "false"},
     {"add_cross_attention", "false"}},
    NormKind::LayerNorm,
    NormPlacement::Pre,
    false,
    true,
    false,
    {
        {"wte.weight", Param::WordEmbeddings},
        {"wpe.weight", Param::PositionEmbeddings},
        {"h.{}.ln_1.weight", Param::AttentionNormWeight},
        {"h.{}.ln_1.bias", Param::AttentionNormBias},
        {"h.{}.attn.c_attn.weight", Param::QkvWeight, Part::Whole, false, true},
        {"h.{}.attn.c_attn.bias", Param::QkvBias},
        {"h.{}.attn.c_proj.weight", Param::OutWeight, Part::Whole, false, true},
        {"h.{}.attn.c_proj.bias", Param::OutBias},
        {"h.{}.ln_2.weight", Param::MlpNormWeight},
        {"h.{}.ln_2.bias", Param::MlpNormBias},
        {"h.{}.mlp.c_fc.weight", Param::MlpInWeight, Part::Whole, false, true},
        {"h.{}.mlp.c_fc.bias", Param::MlpInBias},
        {"h.{}.mlp.c_proj.weight", Param::MlpOutWeight, Part::Whole, false, true},
        {"h.{}.mlp.c_proj.bias", Param::MlpOutBias},
    },
    {
        {"final_norm",
         {norm_step(NormKind::LayerNorm, "transformer.ln_f.weight", "transformer.ln_f.bias")},
         HeadInput::Tokens,
         true},
        {"lm_head", {dense_step("lm_head.weight", nullptr, HeadSize::Vocab, true)}},
    },
    "tie_word_embeddings",
    true,
};

// The final RMSNorm (model.norm), then lm_head or embed_tokens (tie_word_embeddings).
const std::vector<Head> kLlamaHeads = {
    {"final_norm", {norm_step(NormKind::RmsNorm, "model.norm.weight", nullptr)}, HeadInput::Tokens, true},
    {"lm_head", {dense_step("lm_head.weight", nullptr, HeadSize::Vocab, true)}},
};

const std::vector<std::pair<const char*, Activation>> kLlamaActivations = {
    {"silu", Activation::Silu},
    {"swish", Activation::Silu},
    {"gelu", Activation::Gelu},
    {"gelu_pytorch_tanh", Activation::GeluTanh},
};

// LlamaForCausalLM: pre-norm LlamaDecoderLayer with RMSNorm, rotary positions (rope_theta,
// rope_scaling default / linear / llama3), grouped-query attention (num_key_value_heads),
// head_dim (D / H when absent), SwiGLU MLP, no biases; lm_head untied by default.
const Architecture kLlama{
    "llama",
    "model",
    {
        {"vocab_size", &M::vocab_size, 32000},
        {"hidden_size", &M::hidden_size, 4096},
        {"num_hidden_layers", &M::num_layers, 32},
        {"num_attention_heads", &M::num_heads, 32},
        {"num_key_value_heads", &M::num_kv_heads, kDerived},
        {"head_dim", &M::head_dim, kDerived},
        {"intermediate_size", &M::intermediate_size, 11008},
        {"max_position_embeddings", &M::max_positions, 2048},
    },
    "rms_norm_eps",
    1e-6,
    "hidden_act",
    "silu",
    kLlamaActivations,
    // partial_rotary_factor: rotary embeddings on part of each head (modeling_rope_utils.py), which
    // LlamaAttention's apply_rotary_pos_emb does not run either
    {{"attention_bias", "false"}, {"mlp_bias", "false"}, {"partial_rotary_factor", "1.0"}},
    NormKind::RmsNorm,
    NormPlacement::Pre,
    true,
    true,
    true,
    {
        {"embed_tokens.weight", Param::WordEmbeddings},
        {"layers.{}.input_layernorm.weight", Param::AttentionNormWeight},
        {"layers.{}.self_attn.q_proj.weight", Param::QkvWeight, Part::Query},
        {"layers.{}.self_attn.k_proj.weight", Param::QkvWeight, Part::Key},
        {"layers.{}.self_attn.v_proj.weight", Param::QkvWeight, Part::Value},
        {"layers.{}.self_attn.o_proj.weight", Param::OutWeight},
        {"layers.{}.post_attention_layernorm.weight", Param::MlpNormWeight},
        {"layers.{}.mlp.gate_proj.weight", Param::MlpInWeight, Part::Gate},
        {"layers.{}.mlp.up_proj.weight", Param::MlpInWeight, Part::Up},
        {"layers.{}.mlp.down_proj.weight", Param::MlpOutWeight},
    },
    kLlamaHeads,
    "tie_word_embeddings",
    false,
    10000.0,
};

// Qwen2ForCausalLM: Llama's table (the same block, tensors, heads, activations and rope) but for
//   - configuration_qwen2.py's defaults: vocab_size 151936, intermediate_size 22016,
//     max_position_embeddings 32768, num_key_value_heads 32 (null: the heads'); head_dim, which
//     Qwen2Config does not declare, still read as modeling_qwen2.py reads it (getattr(config,
//     "head_dim", hidden_size // num_attention_heads));
//   - biases on q, k and v (modeling_qwen2.py Qwen2Attention: q/k/v_proj bias=True, o_proj none);
//   - the fields it does not implement: the sliding window (use_sliding_window), where Llama's
//     are attention_bias and mlp_bias.
Architecture qwen2_from_llama() {
  Architecture a = kLlama;
  a.model_type = "qwen2";
  auto set_fallback = [&](std::int64_t M::*member, std::int64_t fallback) {
    for (SizeField& f : a.sizes)
      if (f.member == member) f.fallback = fallback;
  };
  set_fallback(&M::vocab_size, 151936);
  set_fallback(&M::num_kv_heads, 32);
  set_fallback(&M::intermediate_size, 22016);
  set_fallback(&M::max_positions, 32768);
  a.unsupported = {{"use_sliding_window", "false"}, {"partial_rotary_factor", "1.0"}};
  a.tensors.insert(a.tensors.end(), {
                                        {"layers.{}.self_attn.q_proj.bias", Param::QkvBias, Part::Query},
                                        {"layers.{}.self_attn.k_proj.bias", Param::QkvBias, Part::Key},
                                        {"layers.{}.self_attn.v_proj.bias", Param::QkvBias, Part::Value},
                                    });
  return a;
}
const Architecture kQwen2 = qwen2_from_llama();

// Built when the module starts (a function-local static would allocate on first use, which the
// tests of failed loads would see as memory kept).
const std::vector<const Architecture*> kArchitectures = {&kDistilBert, &kBert, &kGpt2, &kLlama, &kQwen2};

}  // namespace

const std::vector<const Architecture*>& architectures() { return kArchitectures; }

const Head* find_head(const Architecture& architecture, const char* name, std::size_t* index) {
  for (std::size_t h = 0; h < architecture.heads.size(); ++h)
    if (std::string(architecture.heads[h].name) == name) {
      if (index) *index = h;
      return &architecture.heads[h];
    }
  return nullptr;
}

const Architecture* find_architecture(const std::string& model_type) {
  for (const Architecture* a : architectures())
    if (model_type == a->model_type) return a;
  return nullptr;
}

}  // namespace aw
