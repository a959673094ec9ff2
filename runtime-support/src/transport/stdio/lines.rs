//! The stdio transport: newline-delimited JSON-RPC, each line judged before rmcp sees it.
//!
//! A line is buffered only up to the message limit; past it, the rest of the line streams
//! through the scanner (to find its `id`) and is dropped.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::json_scan::Scanner;
use crate::transport::frame::{FrameLimits, Verdict, judge, judge_oversize};

/// rmcp's transport over a reader and a writer, with every incoming line judged first.
///
/// rmcp drops a pending `receive` when another event wins its select, so reading keeps its
/// partial line in [`Lines`], never in a local, and answers are written by tasks of their
/// own: a cancelled `receive` loses nothing and never leaves half a line on the output.
pub struct LineTransport<R, W> {
    lines: Lines<BufReader<R>>,
    writer: Arc<Mutex<W>>,
    limits: FrameLimits,
}

/// One line as read.
enum Line {
    Whole(Vec<u8>),
    Oversize { scanner: Box<Scanner>, size: usize },
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    pub fn new(reader: R, writer: W, limits: FrameLimits) -> Self {
        Self {
            lines: Lines::new(BufReader::with_capacity(64 * 1024, reader)),
            writer: Arc::new(Mutex::new(writer)),
            limits,
        }
    }
}

/// Writes one message and its newline.
async fn write_line<W: AsyncWrite + Unpin>(
    writer: &Mutex<W>,
    mut text: Vec<u8>,
) -> std::io::Result<()> {
    text.push(b'\n');
    let mut writer = writer.lock().await;
    writer.write_all(&text).await?;
    writer.flush().await
}

/// Newline-delimited input, read so that a dropped read loses nothing.
struct Lines<R> {
    reader: R,
    /// The line read so far, while it fits the limit.
    kept: Vec<u8>,
    /// The line once it outgrew the limit: its scan so far and its size.
    oversize: Option<(Box<Scanner>, usize)>,
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            kept: Vec::new(),
            oversize: None,
        }
    }

    /// The next line that is not blank, or `None` at the end of input or on a read error.
    /// Cancel-safe: the only await is `fill_buf`, which consumes nothing.
    async fn next(&mut self, limits: &FrameLimits) -> Option<Line> {
        loop {
            let buffer = match self.reader.fill_buf().await {
                Ok(buffer) => buffer,
                Err(error) => {
                    tracing::debug!(%error, "stdin read failed");
                    return None;
                }
            };
            if buffer.is_empty() {
                // End of input: a last line without its newline still counts.
                let line = self.take();
                return (!is_blank(&line)).then_some(line);
            }
            let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
                Some(end) => (&buffer[..end], end + 1),
                None => (buffer, buffer.len()),
            };
            let complete = done > chunk.len();
            match &mut self.oversize {
                Some((scanner, size)) => {
                    scanner.feed(chunk);
                    *size += chunk.len();
                }
                None if self.kept.len() + chunk.len() > limits.max_bytes => {
                    let mut scanner = Box::new(Scanner::new(limits.bounds));
                    scanner.feed(&self.kept);
                    scanner.feed(chunk);
                    self.oversize = Some((scanner, self.kept.len() + chunk.len()));
                    self.kept = Vec::new();
                }
                None => self.kept.extend_from_slice(chunk),
            }
            self.reader.consume(done);
            if complete {
                let line = self.take();
                if !is_blank(&line) {
                    return Some(line);
                }
            }
        }
    }

    /// The line read so far, leaving an empty one.
    fn take(&mut self) -> Line {
        if let Some((scanner, size)) = self.oversize.take() {
            return Line::Oversize { scanner, size };
        }
        let mut kept = std::mem::take(&mut self.kept);
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        Line::Whole(kept)
    }
}

fn is_blank(line: &Line) -> bool {
    matches!(line, Line::Whole(bytes) if bytes.iter().all(u8::is_ascii_whitespace))
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let text = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            write_line(&writer, text).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let verdict = match self.lines.next(&self.limits).await? {
                Line::Whole(bytes) => judge(&bytes, &self.limits, false),
                Line::Oversize { scanner, size } => {
                    judge_oversize(scanner.top(), &self.limits, Some(size))
                }
            };
            match verdict {
                Verdict::Pass(message) => return Some(*message),
                Verdict::Call(call) => return Some(call.into_message()),
                Verdict::Reply(reply) => {
                    tracing::debug!(code = ?reply.code(), "answered a malformed message");
                    let writer = self.writer.clone();
                    let text = reply.to_json().into_bytes();
                    tokio::spawn(async move {
                        if let Err(error) = write_line(&writer, text).await {
                            tracing::debug!(%error, "stdout write failed");
                        }
                    });
                }
                Verdict::Ignore(why) => tracing::debug!(why, "dropped a malformed notification"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.writer.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;

    async fn lines(input: &[u8], limits: FrameLimits) -> Vec<String> {
        let mut lines = Lines::new(BufReader::with_capacity(16, input));
        let mut out = Vec::new();
        while let Some(line) = lines.next(&limits).await {
            out.push(match line {
                Line::Whole(bytes) => String::from_utf8(bytes).unwrap(),
                Line::Oversize { scanner, size } => format!(
                    "oversize {size} id={:?}",
                    scanner.top().id.as_ref().and_then(|id| id.raw.clone())
                ),
            });
        }
        out
    }

    #[tokio::test]
    async fn lines_split_on_newlines_and_outgrow_their_limit() {
        let mut limits = FrameLimits::new(&Limits::default());
        limits.max_bytes = 40;
        let long = format!(r#"{{"id":77,"method":"x","params":"{}"}}"#, "y".repeat(100));
        let input = format!("{{\"a\":1}}\r\n\n{long}\nlast");
        assert_eq!(
            lines(input.as_bytes(), limits).await,
            vec![
                "{\"a\":1}".to_owned(),
                format!("oversize {} id=Some(\"77\")", long.len()),
                "last".to_owned()
            ]
        );
    }

    #[tokio::test]
    async fn a_dropped_read_loses_nothing() {
        let limits = FrameLimits::new(&Limits::default());
        let (mut client, server) = tokio::io::duplex(64);
        let mut lines = Lines::new(BufReader::new(server));
        client.write_all(b"{\"half\":").await.unwrap();
        let cut = tokio::time::timeout(std::time::Duration::from_millis(20), lines.next(&limits));
        assert!(cut.await.is_err(), "no whole line yet");
        client.write_all(b"1}\n").await.unwrap();
        match lines.next(&limits).await {
            Some(Line::Whole(bytes)) => assert_eq!(bytes, b"{\"half\":1}"),
            _ => panic!("the whole line"),
        }
    }
}
