//! Where each param of an operation goes and by what name: one decision that `check`,
//! lowering and emission share.

use aqlgen_model::{ContentType, Method, ParamLocation, ParamStyle};

use super::Param;
use super::maps_to::{MapsTo, PathPiece, QueryValue};

/// A param's place in the upstream request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed<'a> {
    /// Where it goes.
    pub location: ParamLocation,
    /// Its name there: the query key of the template, its `wire_name`, or its public name.
    pub wire_name: &'a str,
    /// How an array or object is written.
    pub style: ParamStyle,
    /// Whether an array or object is spread over several values.
    pub explode: bool,
}

/// Where the param `name` of an operation mapped to `maps_to` goes: a path placeholder, a
/// `{name}` of the template's query, its `in`, else the body of a method that sends one,
/// else the query. Contradictions among these are `check`'s to report.
pub fn place<'a>(maps_to: &MapsTo<'a>, name: &'a str, param: &'a Param) -> Placed<'a> {
    let in_path = maps_to.pieces.contains(&PathPiece::Placeholder(name));
    let in_template_query = maps_to
        .query
        .iter()
        .find(|pair| pair.value == QueryValue::Param(name));
    let (location, wire_name) = if in_path {
        (ParamLocation::Path, name)
    } else if let Some(pair) = in_template_query {
        (ParamLocation::Query, pair.name)
    } else {
        let location = param.location.unwrap_or(if maps_to.method.sends_body() {
            ParamLocation::Body
        } else {
            ParamLocation::Query
        });
        (location, param.wire_name.as_deref().unwrap_or(name))
    };
    let style = param
        .style
        .unwrap_or_else(|| ParamStyle::default_for(location));
    Placed {
        location,
        wire_name,
        style,
        explode: param.explode.unwrap_or_else(|| style.default_explode()),
    }
}

/// The body's media type of an operation: its `content_type`, JSON by default.
pub fn content_type(declared: Option<ContentType>) -> ContentType {
    declared.unwrap_or(ContentType::Json)
}

/// Whether an UPDATE takes the param inside `input` (SPEC §4.5): body params do; path,
/// query, header and cookie params address the request and stay at the top level.
pub fn wraps_in_input(location: ParamLocation) -> bool {
    location == ParamLocation::Body
}

/// Whether `method` may carry a body: POST, PUT and PATCH by default, and DELETE for params
/// that say `in: body` (GitHub deletes a file with a body naming the commit). GET never does.
pub fn takes_body(method: Method) -> bool {
    method.sends_body() || method == Method::Delete
}

/// Whether `method` may carry the params `location` names.
pub fn method_allows(method: Method, location: ParamLocation) -> bool {
    !matches!(location, ParamLocation::Body | ParamLocation::WholeBody) || takes_body(method)
}
