//! The `options jsonb` argument of `simhash(doc, options)` and `simhash_features(doc, options)`.

use serde::Deserialize;

/// Options as written in SQL, e.g. `'{"tokenizer": "ngram", "n": 2, "weighting": "tf"}'`.
/// Unknown keys are refused, so a typo never silently falls back to a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOptions {
    #[serde(default)]
    pub tokenizer: TokenizerName,
    #[serde(default)]
    pub n: Option<u32>,
    #[serde(default)]
    pub weighting: Weighting,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenizerName {
    #[default]
    Jieba,
    Ngram,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// count × IDF (jieba's table; unknown words get its median).
    #[default]
    Tfidf,
    /// count.
    Tf,
    /// 1 for every distinct feature.
    Binary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    Jieba,
    /// Character n-grams over the letters and digits of the normalized text.
    Ngram(usize),
}

/// Validated options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub tokenizer: Tokenizer,
    pub weighting: Weighting,
}

impl Default for Options {
    fn default() -> Self {
        Options { tokenizer: Tokenizer::Jieba, weighting: Weighting::Tfidf }
    }
}

pub const DEFAULT_NGRAM_N: u32 = 3;
pub const MAX_NGRAM_N: u32 = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError(pub String);

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<RawOptions> for Options {
    type Error = OptionsError;
    fn try_from(raw: RawOptions) -> Result<Self, OptionsError> {
        let tokenizer = match (raw.tokenizer, raw.n) {
            (TokenizerName::Jieba, None) => Tokenizer::Jieba,
            (TokenizerName::Jieba, Some(_)) => {
                return Err(OptionsError("option \"n\" applies only to \"tokenizer\": \"ngram\"".into()))
            }
            (TokenizerName::Ngram, n) => {
                let n = n.unwrap_or(DEFAULT_NGRAM_N);
                if !(1..=MAX_NGRAM_N).contains(&n) {
                    return Err(OptionsError(format!("option \"n\" must be between 1 and {MAX_NGRAM_N}, not {n}")));
                }
                Tokenizer::Ngram(n as usize)
            }
        };
        Ok(Options { tokenizer, weighting: raw.weighting })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Options, String> {
        let raw: RawOptions = serde_json::from_str(json).map_err(|e| e.to_string())?;
        Options::try_from(raw).map_err(|e| e.0)
    }

    #[test]
    fn defaults_and_values() {
        assert_eq!(parse("{}").unwrap(), Options::default());
        assert_eq!(parse(r#"{"tokenizer":"ngram"}"#).unwrap().tokenizer, Tokenizer::Ngram(3));
        assert_eq!(parse(r#"{"tokenizer":"ngram","n":2,"weighting":"binary"}"#).unwrap(),
                   Options { tokenizer: Tokenizer::Ngram(2), weighting: Weighting::Binary });
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(parse(r#"{"tokeniser":"jieba"}"#).unwrap_err().contains("tokeniser"));
        assert!(parse(r#"{"tokenizer":"icu"}"#).unwrap_err().contains("icu"));
        assert!(parse(r#"{"n":2}"#).unwrap_err().contains("\"n\""));
        assert!(parse(r#"{"tokenizer":"ngram","n":0}"#).unwrap_err().contains("between"));
        assert!(parse(r#"{"tokenizer":"ngram","n":-1}"#).is_err());
    }
}
