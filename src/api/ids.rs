//! Newtype ids, so an operation id, a lease id and a tool call id can never be passed in
//! each other's place. Each is the id exactly as a client wrote it (the ledger validates
//! its shape: operation ids at most `MAX_OP_ID_BYTES` of `[A-Za-z0-9._:-]`); serialised as a
//! plain JSON string.

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as written.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_string())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id!(
    /// A send's operation id: the idempotency key of the send exactly as first proposed.
    OperationId
);
id!(
    /// A lease: the extension's binding to one tab.
    LeaseId
);
id!(
    /// A tool call's native call id.
    ToolCallId
);
