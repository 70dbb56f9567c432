//! tabwire's stdio transport for rmcp: every line with a readable id is answered.
//!
//! rmcp's own stdio transport skips what it cannot parse (bytes that are not UTF-8, a
//! line nested too deeply, one over 16 MiB) and answers shape errors without their id.
//! This one reads lines itself ([`lines`]), decides what each one gets ([`intake`](mod@intake):
//! rmcp, an error reply, or nothing), finds ids in unreadable bytes ([`scan`]), and
//! writes rmcp's messages and its own error replies through one ordered writer task, so
//! lines never interleave.
//!
//! It does not know what a request means: bad params for a known method are answered by
//! [`super::server`], which rmcp asks.

pub mod intake;
pub mod lines;
pub mod scan;

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::time::Duration;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use intake::{intake, too_long, ErrorReply, Intake};
use lines::{Line, LineReader, MAX_LINE};

/// Lines waiting for the writer; past this, reading stdin waits for stdout.
const QUEUE: usize = 64;
/// How long closing waits for the last lines to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// One line for the writer, and who waits to hear it was written.
struct Outgoing {
    line: Vec<u8>,
    written: Option<oneshot::Sender<io::Result<()>>>,
}

/// A server-side rmcp [`Transport`] over a byte stream pair (stdin and stdout).
pub struct LineTransport<R> {
    lines: LineReader<R>,
    limit: usize,
    /// Error replies not yet handed to the writer (kept here so a cancelled
    /// [`Transport::receive`] loses none).
    pending: VecDeque<Vec<u8>>,
    out: Option<mpsc::Sender<Outgoing>>,
    writer: Option<JoinHandle<()>>,
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    /// Reads requests from `read` and writes replies to `write`, with lines capped at
    /// [`MAX_LINE`]. Must be called inside a tokio runtime: it starts the writer task.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        Self::with_limit(read, write, MAX_LINE)
    }

    /// As [`LineTransport::new`], with lines capped at `limit` bytes.
    pub fn with_limit<W: AsyncWrite + Unpin + Send + 'static>(
        read: R,
        write: W,
        limit: usize,
    ) -> Self {
        let (out, queue) = mpsc::channel(QUEUE);
        Self {
            lines: LineReader::new(read, limit),
            limit,
            pending: VecDeque::new(),
            out: Some(out),
            writer: Some(tokio::spawn(write_lines(write, queue))),
        }
    }

    /// Hands the pending error replies to the writer, in order.
    async fn flush_pending(&mut self) -> Option<()> {
        while !self.pending.is_empty() {
            let permit = self.out.as_ref()?.reserve().await.ok()?;
            if let Some(line) = self.pending.pop_front() {
                permit.send(Outgoing {
                    line,
                    written: None,
                });
            }
        }
        Some(())
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let line = serde_json::to_vec(&item);
        async move {
            let mut line = line.map_err(io::Error::other)?;
            line.push(b'\n');
            let out = out.ok_or_else(closed)?;
            let (written, done) = oneshot::channel();
            out.send(Outgoing {
                line,
                written: Some(written),
            })
            .await
            .map_err(|_| closed())?;
            done.await.map_err(|_| closed())?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.flush_pending().await?;
            let line = match self.lines.next().await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    tracing::warn!("reading the agent's requests failed: {e}");
                    return None;
                }
            };
            let what = match line {
                Line::Whole(bytes) => intake(&bytes),
                Line::TooLong { id, len } => too_long(&id, len, self.limit),
            };
            match what {
                Intake::Message(message) => return Some(*message),
                Intake::Answer(replies) => {
                    tracing::debug!(?replies, "answering a line rmcp cannot read");
                    self.pending.extend(replies.iter().map(ErrorReply::to_line));
                }
                Intake::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out = None;
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, writer).await;
        }
        Ok(())
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "the MCP transport is closed")
}

/// Writes queued lines in order until every sender is gone; after a failed write, the
/// rest fail too without being tried.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::Receiver<Outgoing>) {
    let mut failed: Option<io::ErrorKind> = None;
    while let Some(Outgoing { line, written }) = queue.recv().await {
        let result = match failed {
            Some(kind) => Err(io::Error::new(kind, "writing to the agent already failed")),
            None => write_line(&mut write, &line).await,
        };
        if let Err(e) = &result {
            if failed.is_none() {
                tracing::warn!("writing to the agent failed: {e}");
            }
            failed.get_or_insert(e.kind());
        }
        if let Some(written) = written {
            let _ = written.send(result);
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(write: &mut W, line: &[u8]) -> io::Result<()> {
    write.write_all(line).await?;
    write.flush().await
}

#[cfg(test)]
mod tests;
