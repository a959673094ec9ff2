//! `aqlgen import-openapi` follows the long-running operations a document shows: a job API
//! (a `202` with the job's id, a status resource, a cancel action), an Azure-style `PUT`
//! answering `Operation-Location`, a `201` job start and a `links` one; and leaves alone
//! what only looks like one: an order's status, a status resource the start answer has no id
//! for, a state that never ends, another object's state, a state the caller sets.

use aqlgen_build::{Code, ImportOptions, import_openapi};
use serde_json::Value;

/// A small export and cluster API, written for this test.
const JOBS: &str = r##"
openapi: 3.0.3
info: {title: Exports, version: 1.2.0}
servers: [{url: "https://exports.example.com/v1"}]
paths:
  /exports:
    post:
      operationId: createExport
      summary: Create an export of the account's data.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [format]
              properties:
                format: {type: string, enum: [csv, json]}
      responses:
        "202":
          description: The export is queued.
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  status: {$ref: "#/components/schemas/ExportStatus"}
  /exports/{export_id}:
    parameters:
      - {name: export_id, in: path, required: true, schema: {type: string}}
    get:
      operationId: getExport
      summary: Get an export.
      responses:
        "200":
          description: The export.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Export"}
  /exports/{export_id}/cancel:
    parameters:
      - {name: export_id, in: path, required: true, schema: {type: string}}
    post:
      operationId: cancelExport
      summary: Cancel an export that has not ended.
      responses:
        "202": {description: Cancelling.}
  /clusters/{cluster_name}:
    parameters:
      - {name: cluster_name, in: path, required: true, schema: {type: string}}
    put:
      operationId: Clusters_CreateOrUpdate
      summary: Create or update a cluster.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                node_count: {type: integer, minimum: 1}
      responses:
        "202":
          description: Accepted; its Operation-Location reports the progress.
          headers:
            Operation-Location:
              description: The status monitor.
              schema: {type: string, format: uri}
    get:
      operationId: Clusters_Get
      summary: Get a cluster.
      responses:
        "200":
          description: The cluster.
          content:
            application/json:
              schema:
                type: object
                properties:
                  name: {type: string}
components:
  schemas:
    ExportStatus:
      type: string
      enum: [queued, running, succeeded, failed, canceled]
    Export:
      type: object
      properties:
        id: {type: string}
        status: {$ref: "#/components/schemas/ExportStatus"}
        percent_complete: {type: integer, minimum: 0, maximum: 100}
        error:
          type: object
          properties:
            message: {type: string}
        download_url: {type: string}
"##;

/// Imports the YAML `document`; its front matter, and how many operations are followed.
fn import(document: &str) -> (Value, String, usize) {
    let document: Value = serde_yaml::from_str(document).expect("the test document is YAML");
    let imported = import_openapi(&document, &ImportOptions::default()).expect("it imports");
    let checked = aqlgen_build::check_text("imported.md", &imported.text).expect("it passes check");
    assert!(
        checked
            .warnings
            .iter()
            .all(|warning| warning.code == Code::Extension),
        "{:#?}",
        checked.warnings
    );
    let front = imported
        .text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("---\n"))
        .map(|(front, _)| front)
        .expect("front matter");
    let front: Value = serde_yaml::from_str(front).expect("the front matter is YAML");
    (front, imported.text, imported.long_running)
}

/// The operation named `name`, with its family.
fn operation<'a>(front: &'a Value, name: &str) -> (&'a str, &'a Value) {
    front["operations"]
        .as_object()
        .expect("operations")
        .iter()
        .find_map(|(family, list)| {
            list.as_array()?
                .iter()
                .find(|operation| operation["name"] == name)
                .map(|operation| (family.as_str(), operation))
        })
        .unwrap_or_else(|| panic!("no operation {name}"))
}

#[test]
fn a_job_api_and_an_operation_location_are_followed() {
    let (front, text, long_running) = import(JOBS);
    assert_eq!(long_running, 2);
    let (family, create) = operation(&front, "create_export");
    assert_eq!(family, "execute", "a CREATE followed is an EXECUTE");
    assert_eq!(
        create["lifecycle"],
        serde_json::json!({
            "poll": "get_export",
            "id": "id",
            "state": "status",
            "states": {
                "queued": "pending",
                "running": "running",
                "succeeded": "completed",
                "failed": "failed",
                "canceled": "cancelled",
            },
            "progress": {"percentage": "percent_complete"},
            "error": "error",
            "cancel": "cancel_export",
        })
    );
    let (family, cluster) = operation(&front, "clusters_create_or_update");
    assert_eq!(
        family, "execute",
        "an UPDATE answering 202 followed is an EXECUTE"
    );
    let lifecycle = &cluster["lifecycle"];
    assert_eq!(lifecycle["poll"], "location");
    assert_eq!(lifecycle["state"], "status");
    assert_eq!(lifecycle["states"]["Succeeded"], "completed");
    assert_eq!(lifecycle["states"]["notStarted"], "pending");
    assert_eq!(lifecycle["states"]["Canceled"], "cancelled");
    assert_eq!(lifecycle["error"], "error");
    assert!(lifecycle.get("id").is_none() && lifecycle.get("cancel").is_none());
    for name in ["get_export", "clusters_get"] {
        assert_eq!(operation(&front, name).0, "read");
        assert!(operation(&front, name).1.get("lifecycle").is_none());
    }
    assert!(
        operation(&front, "cancel_export")
            .1
            .get("lifecycle")
            .is_none()
    );
    assert!(
        text.contains("## Long-running operations\n\n2 operations start work upstream")
            && text.contains(
                "| clusters_create_or_update | PUT /clusters/{cluster_name} | execute (imported as update) |"
            ),
        "{text}"
    );
    let checked = aqlgen_build::check_text("jobs.md", &text).expect("it passes check");
    let files = aqlgen_build::generate_crate(&checked, &aqlgen_build::CrateLocation::default())
        .expect("it generates");
    let routes = files
        .iter()
        .find(|file| file.path == "src/routes.rs")
        .expect("routes");
    assert!(
        routes.contents.contains("lifecycle"),
        "the routes carry the lifecycle"
    );
}

/// A document of `paths` with `schemas`.
fn document(paths: &str, schemas: &str) -> String {
    format!(
        "openapi: 3.0.3\ninfo: {{title: Shop, version: 1.0.0}}\nservers: [{{url: \"https://shop.example.com\"}}]\npaths:\n{paths}components:\n  schemas:\n{schemas}"
    )
}

#[test]
fn a_created_job_and_a_linked_status_are_followed() {
    let paths = r##"  /builds:
    post:
      operationId: startBuild
      summary: Start a build.
      responses:
        "201":
          description: The build, queued.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Build"}
  /builds/{build_id}:
    get:
      operationId: getBuild
      summary: Get a build.
      parameters:
        - {name: build_id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: The build.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Build"}
  /reports/generate:
    post:
      operationId: generateReport
      summary: Generate a report.
      responses:
        "202":
          description: Generating.
          content:
            application/json:
              schema:
                type: object
                properties:
                  report:
                    type: object
                    properties:
                      key: {type: string}
          links:
            GetReport:
              operationId: getReport
              parameters:
                reportKey: $response.body#/report/key
  /reports/{reportKey}:
    get:
      operationId: getReport
      summary: Get a report.
      parameters:
        - {name: reportKey, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The report.
          content:
            application/json:
              schema:
                type: object
                properties:
                  phase:
                    type: string
                    description: One of `Pending`, `Running`, `Done` or `Failed`.
"##;
    let schemas = r##"    Build:
      type: object
      properties:
        id: {type: integer}
        status: {type: string, enum: [queued, in_progress, success, failure, skipped]}
        progress:
          type: object
          properties:
            done: {type: integer}
            total: {type: integer}
"##;
    let (front, _, long_running) = import(&document(paths, schemas));
    assert_eq!(long_running, 2);
    let build = &operation(&front, "start_build").1["lifecycle"];
    assert_eq!(build["poll"], "get_build");
    assert_eq!(build["id"], "id");
    assert_eq!(
        build["states"],
        serde_json::json!({"queued": "pending", "in_progress": "running", "success": "completed", "failure": "failed"}),
        "a value that means no core state is left out"
    );
    assert_eq!(
        build["progress"],
        serde_json::json!({"current": "progress.done", "total": "progress.total"})
    );
    let report = &operation(&front, "generate_report").1["lifecycle"];
    assert_eq!(report["poll"], "get_report");
    assert_eq!(report["id"], "report.key");
    assert_eq!(report["state"], "phase");
    assert_eq!(
        report["states"],
        serde_json::json!({"Pending": "pending", "Running": "running", "Done": "completed", "Failed": "failed"})
    );
}

#[test]
fn what_only_looks_long_running_is_left_alone() {
    let paths = r##"  /orders:
    post:
      operationId: createOrder
      summary: Create an order.
      responses:
        "201":
          description: The order.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Order"}
  /orders/{order_id}:
    get:
      operationId: getOrder
      parameters:
        - {name: order_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The order.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Order"}
  /imports:
    post:
      operationId: startImport
      summary: Start an import.
      responses:
        "202":
          description: Accepted, with nowhere to follow it.
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
  /syncs:
    post:
      operationId: startSync
      summary: Start a sync.
      responses:
        "202":
          description: Accepted.
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
  /syncs/{sync_id}:
    get:
      operationId: getSync
      parameters:
        - {name: sync_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The sync; its state never says it ended.
          content:
            application/json:
              schema:
                type: object
                properties:
                  state: {type: string, enum: [waiting, active, paused]}
  /salesorders:
    post:
      operationId: createSalesOrder
      summary: Create a sales order in the background.
      responses:
        "202":
          description: Queued; `id` is the background request's, not the order's.
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
  /salesorders/{order_nbr}:
    get:
      operationId: getSalesOrder
      parameters:
        - {name: order_nbr, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The order.
          content:
            application/json:
              schema:
                type: object
                properties:
                  status: {type: string, enum: [Open, Completed, Cancelled]}
  /projects:
    post:
      operationId: createProject
      summary: Create a project.
      responses:
        "201":
          description: The project.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Project"}
  /projects/{project_id}:
    get:
      operationId: getProject
      parameters:
        - {name: project_id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: The project.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Project"}
  /deployments/{deployment_id}/statuses:
    post:
      operationId: createDeploymentStatus
      summary: Create a deployment status.
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                state: {type: string, enum: [pending, in_progress, success, failure]}
      responses:
        "201":
          description: The status.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/DeploymentStatus"}
  /deployments/{deployment_id}/statuses/{status_id}:
    get:
      operationId: getDeploymentStatus
      parameters:
        - {name: deployment_id, in: path, required: true, schema: {type: string}}
        - {name: status_id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: The status.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/DeploymentStatus"}
"##;
    let schemas = r##"    Order:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [pending, paid, shipped, cancelled]}
    Project:
      type: object
      properties:
        id: {type: string}
        last_rollback:
          type: object
          description: Another job's, not the project's.
          properties:
            status: {type: string, enum: [pending, in_progress, succeeded, failed]}
    DeploymentStatus:
      type: object
      properties:
        id: {type: integer}
        state: {type: string, enum: [pending, in_progress, success, failure]}
"##;
    let (front, text, long_running) = import(&document(paths, schemas));
    assert_eq!(long_running, 0, "{text}");
    assert!(!text.contains("lifecycle"), "{text}");
    for name in ["create_order", "create_project", "create_deployment_status"] {
        assert_eq!(operation(&front, name).0, "create", "{name}");
    }
}
