//! What a load balancer or orchestrator asks: `/healthz` (the process serves HTTP),
//! `/readyz` (it can take calls: the state store answers and no shutdown has begun), and, with
//! the `metrics` feature, what Prometheus scrapes: `/metrics`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::adapter::Adapter;
use crate::protocol::server::Shared;

struct Probes<A: Adapter> {
    shared: Arc<Shared<A>>,
    shutdown: CancellationToken,
}

/// The probe routes, served beside `/mcp` but outside its intake.
pub fn router<A: Adapter>(shared: Arc<Shared<A>>, shutdown: CancellationToken) -> axum::Router {
    let router = axum::Router::new()
        .route(
            "/healthz",
            get(|| async { answer(StatusCode::OK, &json!({"status": "ok"})) }),
        )
        .route("/readyz", get(ready::<A>));
    #[cfg(feature = "metrics")]
    let router = router.route("/metrics", get(metrics::<A>));
    router.with_state(Arc::new(Probes { shared, shutdown }))
}

async fn ready<A: Adapter>(State(probes): State<Arc<Probes<A>>>) -> Response {
    let state = probes.shared.config().state.describe();
    let (status, reason) = if probes.shutdown.is_cancelled() {
        (StatusCode::SERVICE_UNAVAILABLE, Some("shutting_down"))
    } else if probes.shared.store().ping().await.is_err() {
        (StatusCode::SERVICE_UNAVAILABLE, Some("state_unavailable"))
    } else {
        (StatusCode::OK, None)
    };
    let body = match reason {
        None => json!({"status": "ready", "state": state}),
        Some(reason) => json!({"status": "unavailable", "state": state, "reason": reason}),
    };
    answer(status, &body)
}

#[cfg(feature = "metrics")]
async fn metrics<A: Adapter>(State(probes): State<Arc<Probes<A>>>) -> Response {
    (
        [(CONTENT_TYPE, crate::call::metrics::CONTENT_TYPE)],
        probes.shared.metrics().render(),
    )
        .into_response()
}

fn answer(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
