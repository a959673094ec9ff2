//! Validated schema -> lowered model. Decides names, types, placement and defaults.

use heck::{ToShoutySnakeCase, ToSnakeCase};

use super::{
    Adapter, Auth, Category, ContentType, DangerLevel, Fallback, Input, Method, Operation, Origin,
    Param, ParamLocation, ParamType, PathSegment, ResultField, StringFormat, Window,
};
use super::{described, query};
use crate::features::PageRole;
use crate::schema::maps_to::{self, PathPiece, QueryValue};
use crate::schema::placement::{self, Placed};
use crate::schema::types::Types;
use crate::schema::{self, AdapterSchema, AuthKind, lifecycle};
use crate::{features, ident};

/// What the description of a multipart file param adds: how its bytes are passed.
const FILE_PART_NOTE: &str =
    "The file's bytes in base64 (RFC 4648, standard alphabet, padded); sent as a file part.";
const FILES_PART_NOTE: &str = "A list of files, each one's bytes in base64 (RFC 4648, \
     standard alphabet, padded); each is sent as a file part of this name.";

/// Lowers a schema that passed validation.
pub fn lower(schema: &AdapterSchema, origin: Origin) -> Adapter {
    let types = Types::of(schema);
    let types = &types;
    let operations = schema
        .operations
        .families()
        .into_iter()
        .flat_map(|(category, list)| {
            list.iter()
                .map(move |operation| lower_operation(schema, types, category, operation))
        })
        .collect();
    Adapter {
        name: schema.name.clone(),
        package: format!("{}-adapter", schema.name),
        lib_name: format!("{}_adapter", schema.name.to_snake_case()),
        type_name: ident::type_name(&schema.name, "Adapter"),
        version: schema.version.clone(),
        description: schema.description.trim().to_owned(),
        base_url: schema.target.base_url.trim_end_matches('/').to_owned(),
        base_url_env: format!("{}_BASE_URL", schema.name.to_shouty_snake_case()),
        auth: lower_auth(schema.auth.as_ref(), &schema.name.to_shouty_snake_case()),
        trust: schema.trust.as_ref().and_then(|trust| trust.level),
        rate_limits: schema
            .rate_limits
            .as_ref()
            .map(|limits| {
                [
                    (Window::Second, limits.burst_limit),
                    (Window::Minute, limits.requests_per_minute),
                    (Window::Hour, limits.requests_per_hour),
                    (Window::Day, limits.requests_per_day),
                ]
                .into_iter()
                .filter_map(|(window, limit)| Some((window, limit?)))
                .collect()
            })
            .unwrap_or_default(),
        schema_path: origin.schema_path,
        format: origin.format,
        fingerprint: origin.fingerprint,
        documentation: origin.documentation,
        operations,
        member: 0,
        graph: query::lower_graph(schema),
    }
}

/// `auth`, with `shouty` (the adapter's name in capitals) naming the token URL's override.
fn lower_auth(auth: Option<&schema::AuthConfig>, shouty: &str) -> Auth {
    let Some(auth) = auth else { return Auth::None };
    let text = |value: &Option<String>| {
        value
            .clone()
            .expect("validated: the auth type's keys are present")
    };
    match auth.kind {
        AuthKind::Bearer => Auth::Bearer {
            token_env: text(&auth.token_env),
            header: auth
                .header
                .clone()
                .unwrap_or_else(|| "Authorization".to_owned()),
            prefix: auth.prefix.clone().unwrap_or_else(|| "Bearer ".to_owned()),
        },
        AuthKind::ApiKey => match (
            auth.header_name.as_ref().or(auth.header.as_ref()),
            &auth.query_param,
        ) {
            (Some(header), _) => Auth::ApiKeyHeader {
                key_env: text(&auth.key_env),
                header: header.clone(),
            },
            (None, param) => Auth::ApiKeyQuery {
                key_env: text(&auth.key_env),
                param: text(param),
            },
        },
        AuthKind::Basic => Auth::Basic {
            username_env: text(&auth.username_env),
            password_env: text(&auth.password_env),
        },
        AuthKind::None => Auth::None,
        AuthKind::Oauth2 => Auth::OAuth2 {
            token_url: text(&auth.token_url),
            token_url_env: format!("{shouty}_TOKEN_URL"),
            client_id_env: text(&auth.client_id_env),
            client_secret_env: text(&auth.client_secret_env),
            refresh_token_env: auth.refresh_token_env.clone(),
            scope: auth.scopes.clone().unwrap_or_default().join(" "),
        },
        AuthKind::Combined => Auth::Combined(
            auth.credentials
                .iter()
                .map(|credential| lower_auth(Some(credential), shouty))
                .collect(),
        ),
        AuthKind::AwsSigv4 => {
            let or = |value: &Option<String>, default: &str| {
                value.clone().unwrap_or_else(|| default.to_owned())
            };
            Auth::AwsSigV4(crate::ir::AwsSigV4 {
                region: text(&auth.region),
                region_env: format!("{shouty}_REGION"),
                service: text(&auth.service),
                access_key_id_env: or(&auth.access_key_id_env, "AWS_ACCESS_KEY_ID"),
                secret_access_key_env: or(&auth.secret_access_key_env, "AWS_SECRET_ACCESS_KEY"),
                session_token_env: or(&auth.session_token_env, "AWS_SESSION_TOKEN"),
            })
        }
    }
}

fn lower_operation(
    schema: &AdapterSchema,
    types: &Types<'_>,
    category: Category,
    operation: &schema::Operation,
) -> Operation {
    let parsed = maps_to::parse(&operation.maps_to).expect("validated: maps_to parses");
    let method = parsed.method;
    let content_type = placement::content_type(operation.content_type);
    let mut params = Vec::new();
    let mut fields = Vec::new();
    let features = features::resolve(category, operation);
    let implied: Vec<(String, schema::Param)> = features
        .paging
        .iter()
        .flat_map(|paging| paging.implied.iter().map(move |param| (paging, param)))
        .map(|(paging, param)| {
            (
                param.name.to_owned(),
                implied_param(param.role, paging.max_limit),
            )
        })
        .collect();
    let hidden = features::hidden_params(operation);
    let declared = operation.params.iter();
    for (name, param) in declared.chain(implied.iter().map(|(name, param)| (name, param))) {
        let placed = placement::place(&parsed, name, param);
        let wraps_in_input =
            category == Category::Update && placement::wraps_in_input(placed.location);
        let label = if wraps_in_input {
            format!("input.{name}")
        } else {
            name.clone()
        };
        // A partial update's member keeps what the upstream has when it is left out.
        let partial_update =
            wraps_in_input || (method == Method::Patch && placed.location == ParamLocation::Body);
        let fallback = if partial_update {
            Fallback::Upstream
        } else {
            Fallback::Filled
        };
        let mut lowered = lower_param(&operation.name, name, label, param, &placed, fallback);
        lowered.clearable = wraps_in_input && lowered.is_optional();
        lowered.hidden = hidden.contains(&name.as_str());
        let file_part = content_type == ContentType::Multipart
            && placed.location == ParamLocation::Body
            && lowered.is_file();
        if file_part {
            // SPEC §4.7.4: how binary is passed must be documented through introspection.
            if !lowered.description.is_empty() {
                lowered.description.push(' ');
            }
            lowered
                .description
                .push_str(if lowered.ty == ParamType::Array {
                    FILES_PART_NOTE
                } else {
                    FILE_PART_NOTE
                });
        }
        if wraps_in_input {
            fields.push(lowered)
        } else {
            params.push(lowered)
        }
    }
    let path = parsed
        .pieces
        .iter()
        .map(|piece| match piece {
            PathPiece::Literal(text) => PathSegment::Literal((*text).to_owned()),
            PathPiece::Placeholder(name) => PathSegment::Param(
                params
                    .iter()
                    .position(|p: &Param| p.name == *name)
                    .expect("validated: placeholders are declared"),
            ),
        })
        .collect();
    let danger = operation.danger_level.unwrap_or_else(|| {
        aqlgen_model::implied_danger(category, &operation.name)
            .map_or(DangerLevel::default_for(category), |(level, _)| level)
    });
    let response = operation.response.as_ref();
    Operation {
        name: operation.name.clone(),
        category,
        method,
        path_template: parsed.path.to_owned(),
        path,
        fixed_query: parsed
            .query
            .iter()
            .filter_map(|pair| match pair.value {
                QueryValue::Fixed(value) => {
                    Some((maps_to::decode(pair.name), maps_to::decode(value)))
                }
                QueryValue::Param(_) => None,
            })
            .collect(),
        fixed_headers: operation
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
        content_type,
        requires_body: operation.requires_body.unwrap_or(false),
        requires_one_of: operation.requires_one_of.clone(),
        description: described(operation.description.as_deref()),
        danger,
        requires_confirmation: operation.requires_confirmation.unwrap_or(false),
        struct_name: ident::type_name(&operation.name, "Params"),
        build_fn: format!("build_{}", operation.name.to_snake_case()),
        route_static: format!("{}_ROUTE", ident::static_name(&operation.name)),
        // Field idents come from `to_snake_case`, which never ends one with `_` but for the
        // escaped keywords (`self_`), so `raw_` is free whenever `raw` is taken.
        raw_arg: if params.iter().any(|param: &Param| param.field == "raw") {
            "raw_".to_owned()
        } else {
            "raw".to_owned()
        },
        params,
        input: (!fields.is_empty()).then(|| Input {
            struct_name: ident::input_type_name(&operation.name),
            fields,
        }),
        returns: ident::returns_type_name(
            &operation.name,
            response.and_then(|r| r.kind.as_deref()),
        ),
        returns_description: response
            .and_then(|r| r.description.clone())
            .unwrap_or_default(),
        returns_fields: response
            .and_then(|r| r.fields.as_ref())
            .map(|fields| {
                fields
                    .iter()
                    .map(|(name, field)| ResultField {
                        name: name.clone(),
                        ty: field.kind,
                        required: field.required.unwrap_or(false),
                        description: described(field.description.as_deref()),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        features,
        lifecycle: operation.lifecycle.as_ref().map(|declared| {
            lifecycle::resolve(schema, category, operation, declared)
                .expect("validated: the lifecycle resolves")
        }),
        query: query::lower_query(operation, types).filter(|_| category == Category::Read),
        computed: query::lower_computed(operation, types),
        known_fields: query::known_fields(operation, types),
    }
}

/// The param an upstream paging param implied by a `pagination` style becomes: optional,
/// documented, bounded like the page it addresses.
fn implied_param(role: PageRole, max_limit: u64) -> schema::Param {
    let (kind, minimum, maximum, description) = match role {
        PageRole::Page => (
            ParamType::Integer,
            Some(1.0),
            None,
            "The page to get, from 1. `first` and `after` page for you.".to_owned(),
        ),
        PageRole::Offset => (
            ParamType::Integer,
            Some(0.0),
            None,
            "How many items to skip. `first` and `after` page for you.".to_owned(),
        ),
        PageRole::Cursor => (
            ParamType::String,
            None,
            None,
            "Where the API's next page starts, as it said. `first` and `after` page for you."
                .to_owned(),
        ),
        PageRole::Size => (
            ParamType::Integer,
            Some(1.0),
            Some(max_limit as f64),
            format!("Items per page, up to {max_limit}. `first` sets it for you."),
        ),
    };
    schema::Param {
        kind,
        required: None,
        description: Some(description),
        default: None,
        allowed: None,
        minimum,
        maximum,
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
        location: None,
        wire_name: None,
        style: None,
        explode: None,
    }
}

/// `param` as lowered, its document default applied as `fallback` says.
fn lower_param(
    operation: &str,
    name: &str,
    label: String,
    param: &schema::Param,
    placed: &Placed<'_>,
    fallback: fn(serde_json::Value) -> Fallback,
) -> Param {
    let ty = param.kind;
    let allowed = param.allowed.clone().unwrap_or_default();
    let checked_format = param
        .format
        .as_deref()
        .and_then(StringFormat::parse)
        .filter(|_| ty == ParamType::String);
    let example = super::example::example(
        name,
        ty,
        &allowed,
        param.default.as_ref(),
        (param.minimum, param.maximum),
        (param.min_length, param.max_length),
        (param.pattern.as_deref(), checked_format),
    );
    Param {
        example,
        name: name.to_owned(),
        label,
        field: ident::field_name(name),
        ty,
        required: param.required.unwrap_or(false),
        description: described(param.description.as_deref()),
        default: param.default.clone().map(fallback),
        enum_type: (!allowed.is_empty()).then(|| ident::enum_type_name(operation, name)),
        allowed,
        minimum: param.minimum,
        maximum: param.maximum,
        lengths: (param.min_length, param.max_length),
        pattern: param.pattern.clone(),
        format: param.format.clone(),
        checked_format,
        placement: placed.location,
        wire_name: placed.wire_name.to_owned(),
        style: placed.style,
        explode: placed.explode,
        clearable: false,
        hidden: false,
    }
}
