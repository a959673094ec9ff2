//! The execution lifecycle of long-running EXECUTE operations (SPEC §8.4): the core states an
//! execution goes through.

use crate::vocabulary;

vocabulary! {
    /// A core state of an execution (SPEC §8.4.1).
    pub enum ExecutionState ("execution state") {
        /// Created, not yet started.
        Pending = "pending",
        /// Processing.
        Running = "running",
        /// Finished successfully (terminal).
        Completed = "completed",
        /// Ended with an error (terminal).
        Failed = "failed",
        /// Ended at a user's request (terminal).
        Cancelled = "cancelled",
    }
}

vocabulary! {
    /// The operations the runtime serves for an adapter with long-running operations: an
    /// adapter that has any cannot define these names.
    pub enum ExecutionOperation ("execution operation") {
        /// READ: an execution's state response.
        GetExecution = "get_execution",
        /// EXECUTE: cancel an execution.
        CancelExecution = "cancel_execution",
    }
}

impl ExecutionState {
    /// Whether no transition leaves it (SPEC §8.4.2; retry is not offered).
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_states_are_terminal() {
        let terminal: Vec<_> = ExecutionState::ALL
            .iter()
            .filter(|state| state.is_terminal())
            .map(|state| state.as_str())
            .collect();
        assert_eq!(terminal, ["completed", "failed", "cancelled"]);
        assert_eq!(
            ExecutionState::parse("running"),
            Some(ExecutionState::Running)
        );
    }
}
