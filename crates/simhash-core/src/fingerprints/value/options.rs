//! The `options jsonb` argument of `simhash(doc, options)` and `simhash_features(doc, options)`.

use serde::{Deserialize, Deserializer};

/// Options as written in SQL, e.g. `'{"tokenizer": "ngram", "n": 2, "weighting": "tf"}'`.
/// Unknown keys are refused, so a typo never silently falls back to a default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOptions {
    /// Absent: the default of the function that reads the options (see [`RawOptions::validate`]).
    #[serde(default)]
    pub definition: Option<Definition>,
    #[serde(default)]
    pub tokenizer: TokenizerName,
    #[serde(default)]
    pub n: Option<u32>,
    #[serde(default)]
    pub weighting: Weighting,
    #[serde(default)]
    pub min_features: Option<u32>,
}

/// Which fingerprint definition (docs/fingerprint.md). A stored fingerprint
/// is only comparable with fingerprints of the same definition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Definition {
    /// The definition of versions 0.1.0 to 0.3.0: raw counts, numbers and single
    /// characters weighed like any word, every text fingerprinted.
    V0,
    /// 1.0.0: no numbers, no single Han characters, and no fingerprint for texts with
    /// too few features.
    V1,
    /// 2.0.0: definition 1 on text whose traditional-only characters are folded to
    /// simplified ones (docs/fingerprint.md, "Definition 2").
    V2,
    /// 3.0.0: definition 2 with exact sums, English IDFs, Japanese kana handled, and
    /// segments by winnowing (docs/fingerprint.md, "Definition 3").
    #[default]
    V3,
}

impl Definition {
    pub fn name(self) -> &'static str {
        match self {
            Definition::V0 => "0",
            Definition::V1 => "1",
            Definition::V2 => "2",
            Definition::V3 => "3",
        }
    }
}

impl<'de> Deserialize<'de> for Definition {
    /// `"0"`, `"1"` or `"2"` (also `0`, `2`, `"2.0"`, `"0.3"`: the major version is what counts).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Str(String),
        }
        let major = match Raw::deserialize(d)? {
            Raw::Int(i) => i.to_string(),
            Raw::Str(s) => s.split('.').next().unwrap_or_default().trim().to_owned(),
        };
        match major.as_str() {
            "0" => Ok(Definition::V0),
            "1" => Ok(Definition::V1),
            "2" => Ok(Definition::V2),
            "3" => Ok(Definition::V3),
            _ => Err(serde::de::Error::custom(format!(
                "unknown definition \"{major}\": expected \"0\", \"1\", \"2\" or \"3\""
            ))),
        }
    }
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
    /// Occurrences × IDF (jieba's table; unknown words get its median).
    #[default]
    Tfidf,
    /// Term frequency alone.
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
    pub definition: Definition,
    pub tokenizer: Tokenizer,
    pub weighting: Weighting,
    /// A text with fewer distinct features than this gets no fingerprint (SQL NULL).
    pub min_features: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options::new(Definition::default(), Tokenizer::Jieba, Weighting::Tfidf)
    }
}

impl Options {
    /// The options of `definition` with this tokenizer and weighting, and the
    /// definition's own `min_features`.
    pub fn new(definition: Definition, tokenizer: Tokenizer, weighting: Weighting) -> Options {
        let min_features = match definition {
            Definition::V0 => 0,
            Definition::V1 | Definition::V2 | Definition::V3 => DEFAULT_MIN_FEATURES,
        };
        Options { definition, tokenizer, weighting, min_features }
    }

    /// Definition 0 with its defaults: what `simhash(doc)` returned in 0.1.0 to 0.3.0.
    pub fn v0() -> Options {
        Options::new(Definition::V0, Tokenizer::Jieba, Weighting::Tfidf)
    }

    /// Definition 1 with its defaults: what `simhash(doc)` returned in 1.x.
    pub fn v1() -> Options {
        Options::new(Definition::V1, Tokenizer::Jieba, Weighting::Tfidf)
    }

    /// Definition 2 with its defaults: what `simhash(doc)` and `simhash_segments(doc)`
    /// returned in 2.x.
    pub fn v2() -> Options {
        Options::new(Definition::V2, Tokenizer::Jieba, Weighting::Tfidf)
    }
}

pub const DEFAULT_NGRAM_N: u32 = 3;
pub const MAX_NGRAM_N: u32 = 32;
/// Definitions 1 and 2's short-text policy (README, "Short texts"; docs/quality.md, "The short-text bound"), the fewest features that
/// kept `make quality`'s corpus precision at k = 3 at 95% or more: 5 gave 90.9%, 6 95.5%.
pub const DEFAULT_MIN_FEATURES: u32 = 6;
pub const MAX_MIN_FEATURES: u32 = 1000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError(pub String);

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<RawOptions> for Options {
    type Error = OptionsError;
    /// With the default definition (2) unless the options name one.
    fn try_from(raw: RawOptions) -> Result<Self, OptionsError> {
        raw.validate(Definition::default())
    }
}

impl RawOptions {
    /// Checked options, with `default` as the definition unless they name one. The C
    /// functions of 0.x keep definition 0 as their default, so that a database still at
    /// 0.3.0 keeps computing 0.3.0's fingerprints after the 1.0 library is installed
    /// and until `ALTER EXTENSION simhash UPDATE`.
    pub fn validate(self, default: Definition) -> Result<Options, OptionsError> {
        let raw = self;
        let definition = raw.definition.unwrap_or(default);
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
        let mut options = Options::new(definition, tokenizer, raw.weighting);
        if let Some(m) = raw.min_features {
            if definition == Definition::V0 {
                return Err(OptionsError(
                    "option \"min_features\" applies only to definitions \"1\", \"2\" and \"3\"".into(),
                ));
            }
            if m > MAX_MIN_FEATURES {
                return Err(OptionsError(format!(
                    "option \"min_features\" must be between 0 and {MAX_MIN_FEATURES}, not {m}"
                )));
            }
            options.min_features = m;
        }
        Ok(options)
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
        assert_eq!(parse("{}").unwrap().definition, Definition::V3);
        assert_eq!(Options::default(), Options::new(Definition::V3, Tokenizer::Jieba, Weighting::Tfidf));
        assert_eq!(parse("{}").unwrap().min_features, DEFAULT_MIN_FEATURES);
        assert_eq!(parse(r#"{"tokenizer":"ngram"}"#).unwrap().tokenizer, Tokenizer::Ngram(3));
        assert_eq!(
            parse(r#"{"tokenizer":"ngram","n":2,"weighting":"binary"}"#).unwrap(),
            Options::new(Definition::V3, Tokenizer::Ngram(2), Weighting::Binary)
        );
        assert_eq!(parse(r#"{"min_features":0}"#).unwrap().min_features, 0);
    }

    #[test]
    fn definitions() {
        for v0 in [r#"{"definition":"0"}"#, r#"{"definition":0}"#, r#"{"definition":"0.3.0"}"#] {
            assert_eq!(parse(v0).unwrap(), Options::v0(), "{v0}");
        }
        for v1 in [r#"{"definition":"1"}"#, r#"{"definition":1}"#, r#"{"definition":"1.0"}"#] {
            assert_eq!(parse(v1).unwrap(), Options::v1(), "{v1}");
        }
        for v2 in [r#"{"definition":"2"}"#, r#"{"definition":2}"#, r#"{"definition":"2.0"}"#] {
            assert_eq!(parse(v2).unwrap(), Options::v2(), "{v2}");
        }
        for v3 in [r#"{"definition":"3"}"#, r#"{"definition":3}"#, r#"{"definition":"3.0"}"#] {
            assert_eq!(parse(v3).unwrap(), Options::default(), "{v3}");
        }
        assert_eq!(Options::v0().min_features, 0);
        assert_eq!(Options::v1().min_features, DEFAULT_MIN_FEATURES);
        assert_eq!(Options::default().min_features, DEFAULT_MIN_FEATURES);
        let unknown = parse(r#"{"definition":"4"}"#).unwrap_err();
        assert!(unknown.contains(r#"unknown definition "4": expected "0", "1", "2" or "3""#), "{unknown}");
        // null, like an absent key, is the default (as for "n").
        assert_eq!(parse(r#"{"definition":null}"#).unwrap(), Options::default());
        assert!(parse(r#"{"definition":"0","min_features":3}"#).unwrap_err().contains("min_features"));
        // The 0.x entry points' default.
        let raw: RawOptions = serde_json::from_str(r#"{"weighting":"tf"}"#).unwrap();
        assert_eq!(
            raw.clone().validate(Definition::V0).unwrap(),
            Options { weighting: Weighting::Tf, ..Options::v0() }
        );
        assert_eq!(raw.clone().validate(Definition::V1).unwrap().definition, Definition::V1);
        assert_eq!(raw.validate(Definition::V2).unwrap().definition, Definition::V2);
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(parse(r#"{"tokeniser":"jieba"}"#).unwrap_err().contains("tokeniser"));
        assert!(parse(r#"{"tokenizer":"icu"}"#).unwrap_err().contains("icu"));
        assert!(parse(r#"{"n":2}"#).unwrap_err().contains("\"n\""));
        assert!(parse(r#"{"tokenizer":"ngram","n":0}"#).unwrap_err().contains("between"));
        assert!(parse(r#"{"tokenizer":"ngram","n":-1}"#).is_err());
        assert!(parse(r#"{"min_features":1001}"#).unwrap_err().contains("between 0 and 1000"));
        assert!(parse(r#"{"min_features":-1}"#).is_err());
    }
}
