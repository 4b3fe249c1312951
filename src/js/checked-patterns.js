// The regular expressions of real tokenizers, each checked by the full analysis of
// tokenizer-check.js (a test, tests/js/tokenizer_patterns.test.mjs, runs it over every entry, so
// that the list never holds a pattern it would refuse). A tokenizer.json whose patterns are all
// here, or are literals (tokenizer-patterns.js), needs no analysis: the default browser entry
// point checks them without loading the analysis (docs/security.md).
//
// Each entry is a `{ "Regex": ... }` pattern exactly as it appears in the file (Oniguruma syntax,
// as @huggingface/tokenizers 0.2 rewrites and runs it). BERT's pipeline has none; GPT-2's and
// SmolLM's regex is built into their ByteLevel pre-tokenizer (no pattern in the file); Llama 2,
// Mistral, Gemma and the other SentencePiece pipelines have only `{ "String": " " }`-like literals.
// The rest are the Split patterns huggingface/tokenizers.js sampled from the hub's tokenizer.json
// files (tests/fixtures/splitRegexPatterns.json, Apache-2.0; hub-NNN is their name there), less
// hub-031, which the analysis refuses (it is exponential).
export const CHECKED_PATTERNS = [
  // hub-000
  '',
  // hub-001
  '\\{(?=[ \\w])',
  // hub-002
  '@[\\w\\d]+',
  // hub-003
  '\\p{N}{1,3}',
  // hub-004
  '(?:\\r?\\n)+(?!\\r?\\n)',
  // hub-005
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
  // hub-006
  '[“”„‟＂]',
  // hub-007
  '/(?=[ \\w])',
  // hub-008
  '[\r\n]',
  // hub-009
  '(\\[[^\\]]+]|Br?|Cl?|N|O|S|P|F|I|b|c|n|o|s|p|\\(|\\)|\\.|=|#|-|\\+|\\\\|\\/|:|~|@|\\?|>>?|\\*|\\$|\\%[0-9]{2}|[0-9])',
  // hub-010
  '―(?=[ \\w])',
  // hub-011
  '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
  // hub-012
  '\\s?\\p{L}+',
  // hub-013
  '(\\[[^\\]]+]|Br?|Cl?|N|O|S|P|F|I|b|c|n|o|s|p|\\(|\\)|\\.|=|#|-|\\+|\\\\|\\/|:|~|@|\\?|>|\\*|\\$|\\%[0-9]{2}|[0-9])',
  // hub-014
  '[\\(\\)\\[\\]\\{\\}]|([!"\\#\\$%\\&\'\\*\\+,\\-\\./:;<=>\\?\\\\\\^_`\\|\\~])\\1*',
  // hub-015
  '[^֐-׿\u0000-‌-‿₠-₿∀-⋿⅐-↋ﬀ-ﭏ]+',
  // hub-016
  '\n',
  // hub-017
  '[0-9][0-9][0-9]',
  // hub-018
  '\\A\\p{Nd}{1,2}(?=\\p{Nd}{3}+\\z)',
  // hub-019
  '“(?=[ \\w])',
  // hub-020
  '(http(s)?:\\/\\/.)?(www\\.)?[-a-zA-Z0-9@:%._\\+~#=]{2,256}\\.[a-z]{2,6}\\b([-a-zA-Z0-9@:%_\\+.~#?&//=]*)',
  // hub-021
  '[一-龥ࠀ-一가-퟿]+',
  // hub-022
  '[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+',
  // hub-023
  '[\\x00-\\x08\\x0b\\x0d-\\x1f\\x7f\\ufeff]',
  // hub-024
  '\\\n(?=[ \\w])',
  // hub-025
  ' ',
  // hub-026
  '\\((?=[ \\w])',
  // hub-027
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-028
  'www[a-zA-Z0-9_\\-?=%&/.~]+',
  // hub-029
  '‹(?=[ \\w])',
  // hub-030
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-032
  "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
  // hub-033
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)| (?!\\h?\\p{N})\\h?(?:\\p{L}\\p{M}*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}\\p{M}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-034
  "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+",
  // hub-035
  '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+',
  // hub-036
  '(?<=[\\u0980-\\u09ff]):',
  // hub-037: Qwen2, Qwen2.5 (Qwen/Qwen2-0.5B and its successors)
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-038
  '’(?=[ \\w])',
  // hub-039
  "(?i: ?(?:[jtmslndcy]['’]|qu['’]|jusqu['’]|lorsqu['’]|puisqu['’]|quoiqu['’]|aujourd['’]hui)|['’][stmd]|['’][rv]e|['’]ll)| ?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-040
  '\\s?\\p{P}+',
  // hub-041: Llama 3, 3.1, 3.2 (meta-llama/Meta-Llama-3-8B and its successors)
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-042
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-043
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // hub-044
  '\\p{Nd}{1,510}(?=(?>\\p{Nd}{510})*(?:\\P{Nd}|$))|\\G\\p{Nd}{510}',
  // hub-045
  'http[s]?://[a-zA-Z0-9_\\-./~\\?=%&]+',
  // hub-046
  '(?=http)[^\\s]+',
  // hub-047
  '\n ',
  // hub-048
  '(?<!\\n)^ ',
  // hub-049
  '\\d',
  // hub-050
  '[!"\\#\\$%\\&\'\\(\\)\\*\\+,\\-\\.:;=\\?@\\[\\\\\\]\\^_`\\{\\|\\}\\~]',
  // hub-051
  ' ?[^(\\s|[.,!?…。，、।۔،])]+',
  // hub-052
  '\\s{2,}|[\\n\\r\\t]',
  // hub-053
  '(\\W)?@usuario(\\W)',
  // hub-054
  '<br [/](https://file+.vscode-resource.vscode-cdn.net/)>',
  // hub-055
  '«(?=[ \\w])',
  // hub-056
  '[\\w-]+@([\\w-]+\\.)+[\\w-]+',
  // hub-057
  '\\[(?=[ \\w])',
  // hub-058
  '"(?=[ \\w])',
  // hub-059
  '\\A\\p{Nd}{3}|\\G\\p{Nd}{3}',
  // hub-060
  '[^ !"$\',.:;?A-Za-z¡«»¿æçðøħŋœǀ-ǃɐ-ɨɪ-ɶɸ-ɻɽɾʀ-ʄʈ-ʒʔʕʘʙʛ-ʝʟʡʢʤʧʰ-ʲʴʷʼˈˌːˑ˞ˠˤ̩βθχᵻ—“”…↑-↓↗↘ⱱ]',
  // hub-061
  "'(?:s|t|re|ve|ll|m|d)|\\b[A-Za-z](?:\\.[A-Za-z])+\\.?|\\d+\\.?\\d*[eE][+-]?\\d+|\\d+\\.\\d+|\\d+|==|!=|->|<=|>=|\\*\\*|//|[-+*/]=|[A-Za-z_][A-Za-z0-9_]*|\\w+|\\n+|[ \\t]+|[^\\s]",
  // hub-062
  '://',
  // hub-063
  '^',
  // hub-064
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}",
  // hub-065
  '<(?=[ \\w])',
  // hub-066
  ' {2,}',
  // hub-067
  '[ \\u00A0]',
  // hub-068
  '\\p{N}',
  // hub-069
  '\\d{1,3}(?=(?:\\d{3})*\\b)',
  // hub-070
  '‚(?=[ \\w])',
  // hub-071
  '\\s?[!-/:-~！-／：-～‘-‟　-。]+',
  // hub-072
  '\\s+',
  // hub-073
  '\\s+$',
  // hub-074
  '(?<!\\n)^',
  // hub-075
  '[一-龥぀-ゟ゠-ヿ]+',
  // hub-076
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\r\n]+|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
  // hub-077
  '[a-zA-Z]+\\.com',
  // hub-078
  '[\\r\\x00]',
  // hub-079
  '(?=www)[^\\s]+',
  // hub-080
  '\\x1F',
  // hub-081
  "'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+",
  // hub-082
  ' ?[！-／：-～‘-‟　-。《》「」【】]+',
  // hub-083
  '^ ',
  // hub-084
  '(\\[UNK\\]|[\\s\\S])',
  // hub-085
  '‘(?=[ \\w])',
  // hub-086
  '[UZOB]',
  // hub-087
  '\\s+|\\w+|[^\\w\\s]+',
  // hub-088
  '▁',
  // hub-089
  '[‘’ʼ‛＇]',
  // hub-090
  "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s",
  // hub-091
  '–(?=[ \\w])',
  // hub-092
  '\\s',
  // hub-093
  '\\S+@\\S+',
  // hub-094
  '.',
  // hub-095
  '[^$;:,.!?—…"()“” ̃ʣʥʦʨᵝꭧAIOQSTWYᵊabcdefhijklmnopqrstuvwxyzɑɐɒæβɔɕçɖðʤəɚɛɜɟɡɥɨɪʝɯɰŋɳɲɴøɸθœɹɾɻʁɽʂʃʈʧʊʋʌɣɤχʎʒʔˈˌːʰʲ↓→↗↘ᵻ]',
  // hub-096
  '(\\W)url(\\W)',
  // hub-097
  "'(?=[ \\w])",
  // hub-098
  '(?:[\\u4E00-\\u9FFF\\u3040-\\u309F\\u30A0-\\u30FF\\u3400-\\u4DBF\\uf900-\\uFAFF\\uFF65-\\uFF9F\\u2F00-\\u2FDF]+|[\\u0E00-\\u0E7F]+|[\\u0E80-\\u0EFF]+|[\\u1780-\\u17FF]+|[\\u1000-\\u109F\\uAA60-\\uAA7F\\uA9E0-\\uA9FF]+|[\\uAC00-\\uD7AF\\u1100-\\u11FF]+)',
  // hub-099
  '[\\n\\r\\t]',
  // hub-100
  '\\\t(?=[ \\w])',
  // hub-101
  '—(?=[ \\w])',
  // hub-102
  '[0-9]',
  // hub-103
  '</?[^>]+>',
  // hub-104
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
];

/**
 * The listed patterns with more than 1,024 ways through the text from one position
 * (tokenizer-check.js's backtrackingPaths; a test checks every entry's count): their tokenizers
 * get a lower maxInputChars (tokenizer-patterns.js, maxInputCharsFor). The others have at most
 * 1,024 (Llama 3's 37).
 */
export const CHECKED_PATTERN_PATHS = {
  '(http(s)?:\\/\\/.)?(www\\.)?[-a-zA-Z0-9@:%._\\+~#=]{2,256}\\.[a-z]{2,6}\\b([-a-zA-Z0-9@:%_\\+.~#?&//=]*)': 30600,
  '\\p{Nd}{1,510}(?=(?>\\p{Nd}{510})*(?:\\P{Nd}|$))|\\G\\p{Nd}{510}': 3061,
};
