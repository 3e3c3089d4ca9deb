//! The option `"decision"` every dedup trigger takes since 7.0.0: how strict the dedup decision
//! is (`"loose"`, `"balanced"`, the default, `"strict"`: docs/decision.md, "Operating points"),
//! or `"none"`, the measure alone. It comes off the options object before the trigger's own
//! options are read, so that each trigger keeps its own grammar.

use crate::decision::Strictness;

use super::DedupError;

/// What the option asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// The measure alone decides (5.x's triggers).
    None,
    /// The dedup decision at this strictness.
    At(Strictness),
}

/// The options argument without the key `"decision"` (None when nothing else is left), and
/// what that key asked, if it was there. Options that are no JSON object come back as they
/// were, for the trigger's own parser to refuse.
pub fn take_decision(options: Option<String>) -> Result<(Option<String>, Option<Setting>), DedupError> {
    let Some(text) = options else { return Ok((None, None)) };
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok((Some(text), None));
    };
    let Some(value) = map.remove("decision") else { return Ok((Some(text), None)) };
    let setting = match value.as_str() {
        Some("none") => Setting::None,
        Some(s) => Setting::At(Strictness::parse(s).ok_or_else(|| DedupError::Decision(value.to_string()))?),
        None => return Err(DedupError::Decision(value.to_string())),
    };
    let rest = (!map.is_empty()).then(|| serde_json::Value::Object(map).to_string());
    Ok((rest, Some(setting)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_comes_off() {
        assert_eq!(take_decision(None), Ok((None, None)));
        assert_eq!(
            take_decision(Some("{\"decision\": \"strict\"}".into())),
            Ok((None, Some(Setting::At(Strictness::Strict))))
        );
        assert_eq!(
            take_decision(Some("{\"min_containment\": 0.8, \"decision\": \"none\"}".into())),
            Ok((Some("{\"min_containment\":0.8}".into()), Some(Setting::None)))
        );
        assert_eq!(
            take_decision(Some("{\"definition\": \"0\"}".into())),
            Ok((Some("{\"definition\": \"0\"}".into()), None))
        );
        assert_eq!(take_decision(Some("[1]".into())), Ok((Some("[1]".into()), None)));
        let e = take_decision(Some("{\"decision\": \"tight\"}".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown decision \"tight\": expected \"loose\", \"balanced\", \"strict\" or \"none\""
        );
        assert!(take_decision(Some("{\"decision\": 1}".into())).is_err());
    }
}
