//! The adapters the end-to-end tests run: `fixture`, which `build.rs` generates from
//! `fixture-adapter.md` (four CRUD operations on items, the delete asking for confirmation,
//! no EXECUTE operation), served by the `fixture-adapter` binary; and the checked-in
//! generated `todo` and `github` crates, served by their own binaries here.

/// What aqlgen generates from `fixture-adapter.md`: the adapter type [`FixtureAdapter`], a
/// typed params struct per operation (`params`), the routing table (`routes`) and the
/// introspection answers (`introspection`).
///
/// [`FixtureAdapter`]: fixture::FixtureAdapter
pub mod fixture {
    include!(concat!(env!("OUT_DIR"), "/fixture_adapter.rs"));
}

pub use fixture::FixtureAdapter;

/// Params in every place and style a request has: headers, cookies, a multipart file, path
/// and query styles, a query in `maps_to`.
pub mod wire {
    include!(concat!(env!("OUT_DIR"), "/wire_adapter.rs"));
}

/// Long-running jobs followed until they end: `lifecycle` by a status operation and by the
/// `Operation-Location` header.
pub mod jobs {
    include!(concat!(env!("OUT_DIR"), "/jobs_adapter.rs"));
}

/// Notes behind OAuth 2: access tokens from the API's token endpoint, by client credentials
/// or a refresh token.
pub mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes_adapter.rs"));
}

/// A few Amazon DynamoDB operations: AWS Signature Version 4, and an `X-Amz-Target` header
/// fixed per operation.
pub mod dynamodb {
    include!(concat!(env!("OUT_DIR"), "/dynamodb_adapter.rs"));
}

/// Two AWS IAM operations of the query protocol: an `Action` fixed in each `maps_to`.
pub mod iam {
    include!(concat!(env!("OUT_DIR"), "/iam_adapter.rs"));
}

/// The `work` bundle: the todo adapter and `tasks-adapter.md` in one server, their operations
/// named `todo__…` and `tasks__…`.
pub mod work {
    include!(concat!(env!("OUT_DIR"), "/work_bundle.rs"));
}

/// Adapters imported from the OpenAPI documents of `real-apis/` by `build.rs`, as
/// `aqlgen import-openapi` writes them: the shapes of three real APIs, and the bodies real
/// documents require.
pub mod real {
    /// Azure Key Vault's secrets: the `api-version` query param on every call.
    pub mod azure {
        include!(concat!(env!("OUT_DIR"), "/azure_adapter.rs"));
    }
    /// Stripe's customers: form-encoded writes with nested keys.
    pub mod stripe {
        include!(concat!(env!("OUT_DIR"), "/stripe_adapter.rs"));
    }
    /// Slack's chat methods: form-encoded RPC writes, OAuth2 tokens.
    pub mod slack {
        include!(concat!(env!("OUT_DIR"), "/slack_adapter.rs"));
    }
    /// Free-form, empty, array and member-less required bodies, a merge patch, an update
    /// whose member has a default, and a PDF answer.
    pub mod bodies {
        include!(concat!(env!("OUT_DIR"), "/bodies_adapter.rs"));
    }
    /// Two API keys required together, both sent on every call.
    pub mod credentials {
        include!(concat!(env!("OUT_DIR"), "/credentials_adapter.rs"));
    }
}
