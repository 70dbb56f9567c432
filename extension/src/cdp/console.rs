//! The events console messages come from: `Runtime.consoleAPICalled`,
//! `Runtime.exceptionThrown`, `Log.entryAdded` and `Audits.issueAdded`.

use serde::Deserialize;
use serde_json::Value;

/// `Runtime.consoleAPICalled`.
#[derive(Debug, Deserialize)]
pub struct ConsoleApiCalled {
    /// `log`, `warning`, `error`, `table`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The arguments.
    #[serde(default)]
    pub args: Vec<ConsoleArg>,
    /// Milliseconds since the Unix epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// Where the call was made.
    #[serde(rename = "stackTrace")]
    pub stack_trace: Option<StackTrace>,
}

/// A console argument: a remote object with its preview.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleArg {
    /// `object`, `string`, `number`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// `array`, `null`, `node`, `error`, ...
    pub subtype: Option<String>,
    /// The class name, for objects.
    pub class_name: Option<String>,
    /// The value of a primitive.
    pub value: Option<Value>,
    /// `NaN`, `Infinity`, `-0`, bigints.
    pub unserializable_value: Option<String>,
    /// A description (an error's stack, a function's source, `Object`, ...).
    pub description: Option<String>,
    /// A shallow preview of an object.
    pub preview: Option<ObjectPreview>,
}

/// A shallow preview of an object.
#[derive(Debug, Default, Deserialize)]
pub struct ObjectPreview {
    /// `object`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
    /// `array`, `map`, ...
    pub subtype: Option<String>,
    /// A description.
    pub description: Option<String>,
    /// More properties exist than are listed.
    #[serde(default)]
    pub overflow: bool,
    /// The first properties.
    #[serde(default)]
    pub properties: Vec<PropertyPreview>,
}

/// One property in a preview.
#[derive(Debug, Default, Deserialize)]
pub struct PropertyPreview {
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its type.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its value, abbreviated, as text.
    pub value: Option<String>,
    /// Its subtype.
    pub subtype: Option<String>,
}

/// A stack trace.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackTrace {
    /// Innermost first.
    #[serde(default)]
    pub call_frames: Vec<CallFrame>,
}

/// A stack frame (0-based line and column).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The function's name.
    #[serde(default)]
    pub function_name: String,
    /// The script's URL.
    #[serde(default)]
    pub url: String,
    /// 0-based line.
    #[serde(default)]
    pub line_number: i64,
    /// 0-based column.
    #[serde(default)]
    pub column_number: i64,
}

/// `Runtime.exceptionThrown`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionThrown {
    /// Milliseconds since the Unix epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// The exception.
    pub exception_details: ThrownDetails,
}

/// An uncaught exception.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThrownDetails {
    /// `Uncaught`, ...
    #[serde(default)]
    pub text: String,
    /// The script's URL.
    pub url: Option<String>,
    /// 0-based line.
    #[serde(default)]
    pub line_number: i64,
    /// 0-based column.
    #[serde(default)]
    pub column_number: i64,
    /// The stack.
    pub stack_trace: Option<StackTrace>,
    /// The thrown value.
    pub exception: Option<ConsoleArg>,
}

/// `Log.entryAdded`.
#[derive(Debug, Deserialize)]
pub struct LogEntryAdded {
    /// The entry.
    pub entry: LogEntry,
}

/// A browser log entry.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// `network`, `violation`, `intervention`, `javascript`, ...
    #[serde(default)]
    pub source: String,
    /// `verbose`, `info`, `warning`, `error`.
    #[serde(default)]
    pub level: String,
    /// The text.
    #[serde(default)]
    pub text: String,
    /// The URL it is about.
    pub url: Option<String>,
    /// Milliseconds since the Unix epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// The stack, if any.
    pub stack_trace: Option<StackTrace>,
}

/// `Audits.issueAdded`.
#[derive(Debug, Deserialize)]
pub struct IssueAdded {
    /// The issue.
    pub issue: Issue,
}

/// An issue the browser found.
#[derive(Debug, Default, Deserialize)]
pub struct Issue {
    /// `MixedContentIssue`, `CookieIssue`, ...
    #[serde(default)]
    pub code: String,
    /// Its details, whose shape depends on the code.
    #[serde(default)]
    pub details: Value,
}
