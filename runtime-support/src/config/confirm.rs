//! Who confirms an operation the gate holds for confirmation: the model with a token, the
//! person at the MCP client through elicitation, or that person with a code sent to them on a
//! channel the model cannot read (SPEC §8.8). The operator chooses per danger level.

use std::path::PathBuf;
use std::time::Duration;

use aqlgen_model::DangerLevel;

/// How an operation of one danger level is confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmBy {
    /// A confirmation token the model brings back (confirmation-tokens §3).
    Token,
    /// The person at the client, through an elicitation form.
    Person,
    /// The person, with a verification code delivered out of band (SPEC §8.8).
    Verify,
}

impl ConfirmBy {
    /// The name flags and introspection use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::Person => "person",
            Self::Verify => "verify",
        }
    }

    /// Whether a person answers: through elicitation.
    pub const fn asks_person(self) -> bool {
        matches!(self, Self::Person | Self::Verify)
    }

    fn parse(text: &str) -> Option<Self> {
        match text {
            "token" => Some(Self::Token),
            "person" => Some(Self::Person),
            "verify" => Some(Self::Verify),
            _ => None,
        }
    }
}

/// What happens when a person should confirm and the client cannot ask one (it declared no
/// elicitation, or the call is an item of a stateless batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The token flow, as for a `token` level.
    Token,
    /// Refused with `PERMISSION_CONFIRMATION_UNAVAILABLE`.
    Refuse,
}

impl Fallback {
    /// The name flags and introspection use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::Refuse => "refuse",
        }
    }

    /// Parses `token` or `refuse`.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "token" => Ok(Self::Token),
            "refuse" => Ok(Self::Refuse),
            _ => Err(format!(
                "confirmation fallback '{text}' is not one of token, refuse"
            )),
        }
    }
}

/// Where a verification code is shown: a channel the model cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Channel {
    /// The terminal the server was started from (`/dev/tty`), never its stdout or stderr.
    Terminal,
    /// One JSON line appended to a file only the operator reads (created with mode 0600).
    File(PathBuf),
    /// A JSON `POST` to the operator's webhook.
    Webhook(url::Url),
}

impl Channel {
    /// Parses `terminal`, `file:PATH` or an `http(s)://` webhook URL.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        let usage = "expected terminal, file:PATH or an http(s):// webhook URL";
        if text == "terminal" {
            return Ok(Self::Terminal);
        }
        if let Some(path) = text.strip_prefix("file:") {
            if path.is_empty() {
                return Err(format!("verification channel '{text}': {usage}"));
            }
            return Ok(Self::File(PathBuf::from(path)));
        }
        match url::Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Self::Webhook(url)),
            _ => Err(format!("verification channel '{text}': {usage}")),
        }
    }

    /// How the person is told where to look; a webhook is named by its host only.
    pub fn describe(&self) -> String {
        match self {
            Self::Terminal => "the terminal the adapter runs in".to_owned(),
            Self::File(_) => "the operator's verification file".to_owned(),
            Self::Webhook(url) => format!(
                "the operator's notification channel ({})",
                url.host_str().unwrap_or("webhook")
            ),
        }
    }
}

/// The operator's confirmation settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmConfig {
    /// Per danger level, in [`DangerLevel::ALL`] order.
    by: [ConfirmBy; 5],
    /// When a person cannot be asked.
    pub fallback: Fallback,
    /// How long a person has to answer a form on a session.
    pub answer_timeout: Duration,
    /// Where verification codes go; required when any level is `verify`.
    pub channel: Option<Channel>,
    /// How long a verification challenge lives (SPEC §8.8.2: default 5 minutes).
    pub challenge_ttl: Duration,
}

impl Default for ConfirmConfig {
    /// A person confirms wherever the client can ask one; elsewhere the token flow.
    fn default() -> Self {
        Self {
            by: [ConfirmBy::Person; 5],
            fallback: Fallback::Token,
            answer_timeout: Duration::from_secs(120),
            channel: None,
            challenge_ttl: Duration::from_secs(300),
        }
    }
}

impl ConfirmConfig {
    /// How `danger` is confirmed.
    pub fn by(&self, danger: DangerLevel) -> ConfirmBy {
        self.by[usize::from(danger.rank())]
    }

    /// Sets how `danger` is confirmed.
    pub fn set(&mut self, danger: DangerLevel, by: ConfirmBy) {
        self.by[usize::from(danger.rank())] = by;
    }

    /// Applies `LEVEL=token|person|verify` (`all=` for every level).
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn apply(&mut self, text: &str) -> Result<(), String> {
        let usage = "expected LEVEL=token|person|verify, LEVEL one of safe, reversible, destructive, dangerous, forbidden or all";
        let (level, by) = text
            .split_once('=')
            .ok_or_else(|| format!("confirm-by '{text}': {usage}"))?;
        let by =
            ConfirmBy::parse(by.trim()).ok_or_else(|| format!("confirm-by '{text}': {usage}"))?;
        match level.trim() {
            "all" => self.by = [by; 5],
            level => {
                let level = DangerLevel::parse(level)
                    .ok_or_else(|| format!("confirm-by '{text}': {usage}"))?;
                self.set(level, by);
            }
        }
        Ok(())
    }

    /// Whether any level asks for a verification code.
    pub fn verifies(&self) -> bool {
        self.by.contains(&ConfirmBy::Verify)
    }

    /// A setting that cannot work, said for the operator.
    pub fn problem(&self) -> Option<String> {
        (self.verifies() && self.channel.is_none()).then(|| {
            "a danger level is confirmed by 'verify', which needs --verify-channel (terminal, file:PATH or a webhook URL) to send the codes to"
                .to_owned()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_channels_and_fallbacks_parse() {
        let mut config = ConfirmConfig::default();
        assert_eq!(config.by(DangerLevel::Dangerous), ConfirmBy::Person);
        config.apply("all=token").unwrap();
        config.apply("dangerous=verify").unwrap();
        assert_eq!(config.by(DangerLevel::Destructive), ConfirmBy::Token);
        assert_eq!(config.by(DangerLevel::Dangerous), ConfirmBy::Verify);
        assert!(config.problem().is_some(), "verify needs a channel");
        config.channel = Some(Channel::parse("https://hooks.example/x?k=1").unwrap());
        assert_eq!(config.problem(), None);
        assert_eq!(
            config.channel.as_ref().unwrap().describe(),
            "the operator's notification channel (hooks.example)"
        );
        for bad in ["dangerous", "dangerous=maybe", "loud=person"] {
            assert!(config.apply(bad).is_err(), "{bad}");
        }
        assert_eq!(Channel::parse("terminal"), Ok(Channel::Terminal));
        assert_eq!(
            Channel::parse("file:/var/aql/codes"),
            Ok(Channel::File("/var/aql/codes".into()))
        );
        for bad in ["file:", "ftp://x", "tty"] {
            assert!(Channel::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Fallback::parse("refuse"), Ok(Fallback::Refuse));
        assert!(Fallback::parse("allow").is_err());
    }
}
