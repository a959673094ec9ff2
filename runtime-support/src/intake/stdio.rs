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

use super::{FrameLimits, Verdict, judge, judge_oversize};
use crate::json_scan::Scanner;

/// rmcp's transport over a reader and a writer, with every incoming line judged first.
pub struct LineTransport<R, W> {
    reader: BufReader<R>,
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
            reader: BufReader::with_capacity(64 * 1024, reader),
            writer: Arc::new(Mutex::new(writer)),
            limits,
        }
    }

    /// The next non-empty line, or `None` at the end of input or on a read error.
    async fn next_line(&mut self) -> Option<Line> {
        loop {
            let line = read_line(&mut self.reader, &self.limits).await?;
            match &line {
                Line::Whole(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
                _ => return Some(line),
            }
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

/// Reads up to the next `\n`, keeping at most `limits.max_bytes` bytes.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, limits: &FrameLimits) -> Option<Line> {
    let mut kept = Vec::new();
    let mut oversize: Option<(Box<Scanner>, usize)> = None;
    loop {
        let buffer = match reader.fill_buf().await {
            Ok(buffer) => buffer,
            Err(error) => {
                tracing::debug!(%error, "stdin read failed");
                return None;
            }
        };
        if buffer.is_empty() {
            // End of input: a last line without its newline still counts.
            return match oversize {
                Some((scanner, size)) => Some(Line::Oversize { scanner, size }),
                None if kept.is_empty() => None,
                None => Some(Line::Whole(kept)),
            };
        }
        let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        let complete = done > chunk.len();
        match &mut oversize {
            Some((scanner, size)) => {
                scanner.feed(chunk);
                *size += chunk.len();
            }
            None if kept.len() + chunk.len() > limits.max_bytes => {
                let mut scanner = Box::new(Scanner::new(limits.bounds));
                scanner.feed(&kept);
                scanner.feed(chunk);
                oversize = Some((scanner, kept.len() + chunk.len()));
                kept = Vec::new();
            }
            None => kept.extend_from_slice(chunk),
        }
        reader.consume(done);
        if complete {
            return Some(match oversize {
                Some((scanner, size)) => Line::Oversize { scanner, size },
                None => {
                    if kept.last() == Some(&b'\r') {
                        kept.pop();
                    }
                    Line::Whole(kept)
                }
            });
        }
    }
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
            let verdict = match self.next_line().await? {
                Line::Whole(bytes) => judge(&bytes, &self.limits),
                Line::Oversize { scanner, size } => {
                    judge_oversize(scanner.top(), &self.limits, Some(size))
                }
            };
            match verdict {
                Verdict::Pass(message) => return Some(*message),
                Verdict::Reply(reply) => {
                    tracing::debug!(code = ?reply.code(), "answered a malformed message");
                    let text = reply.to_json().into_bytes();
                    if write_line(&self.writer, text).await.is_err() {
                        return None;
                    }
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
        let mut reader = BufReader::with_capacity(16, input);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, &limits).await {
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
                String::new(),
                format!("oversize {} id=Some(\"77\")", long.len()),
                "last".to_owned()
            ]
        );
    }
}
