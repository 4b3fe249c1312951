// The architectures, as data (see architecture.hpp). Field names and defaults from transformers'
// configuration_distilbert.py / configuration_bert.py; tensor names from the base models'
// state_dict in modeling_distilbert.py (DistilBertModel: embeddings, transformer.layer.N) and
// modeling_bert.py (BertModel: embeddings, encoder.layer.N, pooler).
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
    {{"position_embedding_type", "\"absolute\""}, {"is_decoder", "false"}, {"add_cross_attention", "false"}},
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
};

// Built when the module starts (a function-local static would allocate on first use, which the
// tests of failed loads would see as memory kept).
const std::vector<const Architecture*> kArchitectures = {&kDistilBert, &kBert};

}  // namespace

const std::vector<const Architecture*>& architectures() { return kArchitectures; }

const Architecture* find_architecture(const std::string& model_type) {
  for (const Architecture* a : architectures())
    if (model_type == a->model_type) return a;
  return nullptr;
}

}  // namespace aw
