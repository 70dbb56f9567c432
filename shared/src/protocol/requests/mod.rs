//! One file per command: its fields, and what [`Request`](super::Request) says about
//! it (its reply, time limit, resending, effect on the tabs, tab).

mod activate_tab;
mod close_tab;
mod console_message;
mod css_styles;
mod discover_tools;
mod emulate;
mod evaluate;
mod execute_tool;
mod handle_dialog;
mod input;
mod list_console;
mod list_tabs;
mod navigate;
mod network_request;
mod network_requests;
mod new_tab;
mod resize_page;
mod screenshot;
mod snapshot;
mod trace;
mod wait_for_text;
mod webmcp;

pub use activate_tab::ActivateTab;
pub use close_tab::CloseTab;
pub use console_message::GetConsoleMessage;
pub use css_styles::GetCssStyles;
pub use discover_tools::DiscoverTools;
pub use emulate::Emulate;
pub use evaluate::Evaluate;
pub use execute_tool::ExecuteTool;
pub use handle_dialog::HandleDialog;
pub use input::Input;
pub use list_console::ListConsole;
pub use list_tabs::ListTabs;
pub use navigate::{Navigate, Navigation};
pub use network_request::GetNetworkRequest;
pub use network_requests::NetworkRequests;
pub use new_tab::NewTab;
pub use resize_page::ResizePage;
pub use screenshot::Screenshot;
pub use snapshot::TakeSnapshot;
pub use trace::{ReadTrace, StartTrace, StopTrace, TraceChunk, TRACE_CHUNK_BYTES, TRACE_STOP};
pub use wait_for_text::WaitForText;
pub use webmcp::{InvokeWebMcpTool, ListWebMcpTools};
