//! The dedup and update triggers' arguments: `CREATE TRIGGER ... EXECUTE FUNCTION
//! simhash_dedup_trigger(...)` passes them as strings, checked here, with the errors that
//! name what is wrong. The error texts appear in the regression tests' expected output.

use std::fmt;

use crate::threshold::{self, Bound, ThresholdError};

/// What the trigger does with a row that has a near-duplicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// ERROR 23505, like a unique index.
    Reject,
    /// The row is not inserted (the BEFORE trigger returns NULL).
    Skip,
    /// The row is inserted with a column set to the matching row's key.
    Link,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Reject => "reject",
            Action::Skip => "skip",
            Action::Link => "link",
        }
    }
}

/// The arguments of `simhash_update_trigger(fp_column, text_column [, options])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateArgs {
    pub fp_column: String,
    pub text_column: String,
    /// The trailing options argument, JSON text as written (see [`is_options`]).
    pub options: Option<String>,
}

/// The argument lists the triggers accept, for messages.
pub const UPDATE_SIGNATURE: &str = "2 or 3 arguments (fp_column, text_column [, options])";
pub const SEGMENTS_SIGNATURE: &str = "2 or 3 arguments (segments_column, text_column [, options])";

/// Invalid trigger arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum DedupError {
    /// Wrong number of arguments (how the trigger was declared): SQLSTATE 39P01. `got`
    /// counts the arguments before the options if `options`; `expected` is
    /// a signature such as [`UPDATE_SIGNATURE`].
    ArgCount { got: usize, options: bool, expected: &'static str },
    /// One argument more than the trigger takes without options, and the last one is not
    /// options: 22023.
    NotOptions { position: usize, got: String },
    /// An options argument (see [`is_options`]) that is not the last argument: 22023.
    OptionsNotLast { position: usize },
    /// `max_distance` is not an integer in `0..=64`: 22023.
    MaxDistance(String),
    /// A threshold argument or option (`min_resemblance`, `min_similarity`,
    /// `min_containment`) that is not a number in `(0, 1]` ([`crate::threshold`]): 22023.
    Threshold(ThresholdError),
    /// Options that are not a JSON object, or not JSON (serde_json's message): 22023.
    BadOptions(String),
    /// An option key the trigger does not take: 22023. `expected` lists the ones it does.
    UnknownOption { key: String, expected: &'static str },
    /// Unknown action: 22023.
    Action(String),
    /// `link` without a link column (the argument at `position`): 22023.
    LinkColumnMissing { position: usize },
    /// A link column (at `position`) with an action other than `link`: 22023.
    LinkColumnUnexpected { action: Action, position: usize },
    /// Options given to `simhash_dedup_fp_trigger`, which fingerprints nothing: 22023.
    OptionsNotTaken,
    /// The option `"decision"` with no setting it knows (decision.rs): 22023.
    Decision(String),
    /// The option `"decision"` given to a trigger that keeps an older decision (`_d2`): 22023.
    DecisionNotTaken,
}

/// "fourth", "fifth": where the link column goes.
fn ordinal(position: usize) -> &'static str {
    match position {
        4 => "fourth",
        _ => "fifth",
    }
}

impl DedupError {
    /// Whether the error is in how the trigger was declared (39P01) rather than in an
    /// argument's value (22023).
    pub fn is_protocol(&self) -> bool {
        matches!(self, DedupError::ArgCount { .. })
    }
}

impl fmt::Display for DedupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DedupError::ArgCount { got, options: false, expected } => write!(f, "expected {expected}, got {got}"),
            DedupError::ArgCount { got, options: true, expected } => {
                write!(f, "expected {expected}, got {got} before the options")
            }
            DedupError::NotOptions { position, got } => write!(
                f,
                "argument {position} must be the options, JSON beginning with \"{{\" such as '{{\"definition\": \"0\"}}', got \"{got}\""
            ),
            DedupError::OptionsNotLast { position } => {
                write!(f, "argument {position} looks like options (it begins with \"{{\"), but the options must be the last argument")
            }
            DedupError::MaxDistance(s) => write!(f, "max_distance must be an integer between 0 and 64, got \"{s}\""),
            DedupError::Threshold(e) => e.fmt(f),
            DedupError::BadOptions(e) => write!(f, "invalid options: {e}"),
            DedupError::UnknownOption { key, expected } => {
                write!(f, "unknown option \"{key}\": the options are {expected}")
            }
            DedupError::Action(s) => write!(f, "unknown action \"{s}\": expected reject, skip or link"),
            DedupError::LinkColumnMissing { position } => {
                write!(f, "action link needs a {} argument, the column to link with", ordinal(*position))
            }
            DedupError::LinkColumnUnexpected { action, position } => write!(
                f,
                "a {} argument (link column) is only allowed with action link, not {}",
                ordinal(*position),
                action.name()
            ),
            DedupError::Decision(s) => {
                write!(f, "unknown decision {s}: expected \"loose\", \"balanced\", \"strict\" or \"none\"")
            }
            DedupError::DecisionNotTaken => write!(
                f,
                "the option \"decision\" is 7.0.0's: this trigger keeps 6.0.0's decision (use the trigger without the suffix _d2)"
            ),
            DedupError::OptionsNotTaken => write!(
                f,
                "takes no options: the row brings its fingerprint (use simhash_dedup_trigger to fingerprint a text column)"
            ),
        }
    }
}

/// Whether a trigger argument is options: JSON text beginning with `{` (after leading
/// whitespace), as `simhash(doc, options)` takes them, e.g. `{"definition": "0"}`; or a
/// JSON array or `null`, which the options parsers then refuse as no object.
pub fn is_options(arg: &str) -> bool {
    // Other JSON (an array, null) is a mistaken options argument, to be reported as such
    // rather than read as a link column (issue 49).
    let a = arg.trim();
    a.starts_with('{') || a.starts_with('[') || a.eq_ignore_ascii_case("null")
}

/// Splits a trailing options argument off `args`, which must hold `min..=max` arguments
/// before it. Only the last argument may be options, and `max + 1` arguments need them.
pub(crate) fn split_options<'a, S: AsRef<str>>(
    args: &'a [S],
    min: usize,
    max: usize,
    expected: &'static str,
) -> Result<(&'a [S], Option<String>), DedupError> {
    let Some((last, rest)) = args.split_last().filter(|_| (min..=max + 1).contains(&args.len())) else {
        return Err(DedupError::ArgCount { got: args.len(), options: false, expected });
    };
    if let Some(i) = rest.iter().position(|a| is_options(a.as_ref())) {
        return Err(DedupError::OptionsNotLast { position: i + 1 });
    }
    if is_options(last.as_ref()) {
        if rest.len() < min {
            return Err(DedupError::ArgCount { got: rest.len(), options: true, expected });
        }
        return Ok((rest, Some(last.as_ref().to_owned())));
    }
    if args.len() > max {
        return Err(DedupError::NotOptions { position: args.len(), got: last.as_ref().to_owned() });
    }
    Ok((args, None))
}

/// Parses an action name (case-insensitive, surrounding spaces ignored).
pub fn parse_action(s: &str) -> Result<Action, DedupError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "reject" => Ok(Action::Reject),
        "skip" => Ok(Action::Skip),
        "link" => Ok(Action::Link),
        _ => Err(DedupError::Action(s.to_owned())),
    }
}

/// Parses a threshold given as a trigger argument (`name` for messages): a number in
/// `(0, 1]` ([`Bound::Positive`]). 0 is refused: every pair of texts would match.
pub fn parse_threshold(name: &'static str, s: &str) -> Result<f64, DedupError> {
    threshold::parse(s, Bound::Positive, name).map_err(DedupError::Threshold)
}

/// A trigger option's threshold (`key`, its JSON value `v`): a JSON number in `(0, 1]`.
pub fn option_threshold(key: &'static str, v: &serde_json::Value) -> Result<f64, DedupError> {
    let t = v.as_f64().unwrap_or(f64::NAN);
    threshold::check(t, Bound::Positive, format!("option \"{key}\""), v).map_err(DedupError::Threshold)
}

/// `action [, link_column]` starting at `args[at]`, the tail every dedup trigger shares: the
/// link column is required with `link` and refused with the other actions.
pub(crate) fn parse_action_and_link<S: AsRef<str>>(
    args: &[S],
    at: usize,
) -> Result<(Action, Option<String>), DedupError> {
    let action = parse_action(args[at].as_ref())?;
    let link_column = args.get(at + 1).map(|s| s.as_ref().to_owned());
    let position = at + 2; // the link column's, 1-based, for messages
    match (action, &link_column) {
        (Action::Link, None) => Err(DedupError::LinkColumnMissing { position }),
        (a, Some(_)) if a != Action::Link => Err(DedupError::LinkColumnUnexpected { action: a, position }),
        _ => Ok((action, link_column)),
    }
}

/// Checks the arguments of `simhash_update_trigger`.
pub fn parse_update_args<S: AsRef<str>>(args: &[S]) -> Result<UpdateArgs, DedupError> {
    parse_column_and_text(args, UPDATE_SIGNATURE)
}

/// Checks the arguments of `simhash_segments_trigger(segments_column, text_column [, options])`,
/// which have the shape of `simhash_update_trigger`'s (`fp_column` holds the segments column).
pub fn parse_segments_args<S: AsRef<str>>(args: &[S]) -> Result<UpdateArgs, DedupError> {
    parse_column_and_text(args, SEGMENTS_SIGNATURE)
}

fn parse_column_and_text<S: AsRef<str>>(args: &[S], signature: &'static str) -> Result<UpdateArgs, DedupError> {
    let (args, options) = split_options(args, 2, 2, signature)?;
    Ok(UpdateArgs { fp_column: args[0].as_ref().to_owned(), text_column: args[1].as_ref().to_owned(), options })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_args() {
        let a = parse_update_args(&["fp", "body"]).unwrap();
        assert_eq!(a, UpdateArgs { fp_column: "fp".into(), text_column: "body".into(), options: None });
        let a = parse_update_args(&["fp", "body", r#"{"definition": "0"}"#]).unwrap();
        assert_eq!(a.options.as_deref(), Some(r#"{"definition": "0"}"#));
        assert_eq!(
            parse_update_args(&["fp", "body", "x"]),
            Err(DedupError::NotOptions { position: 3, got: "x".into() })
        );
        assert_eq!(parse_update_args(&["fp", "{}", "body"]), Err(DedupError::OptionsNotLast { position: 2 }));
        for n in [0, 1, 4] {
            let args: Vec<&str> = ["fp", "body", "{}", "{}"][..n].to_vec();
            let e = parse_update_args(&args).unwrap_err();
            assert_eq!(e, DedupError::ArgCount { got: n, options: false, expected: UPDATE_SIGNATURE }, "{n}");
            assert!(e.is_protocol());
        }
        assert_eq!(
            parse_update_args(&["fp", "{}"]),
            Err(DedupError::ArgCount { got: 1, options: true, expected: UPDATE_SIGNATURE })
        );
        assert_eq!(
            DedupError::ArgCount { got: 1, options: false, expected: UPDATE_SIGNATURE }.to_string(),
            "expected 2 or 3 arguments (fp_column, text_column [, options]), got 1"
        );
    }
}
