//! Which A2A operation a request is: the one reader of JSON-RPC methods, HTTP+JSON routes and
//! gRPC rpcs of both versions, by the operation's 1.0 name, with the version whose names the
//! request used and the fields a REST path carries. It reads a request as the reference agent
//! serves it: a route with a trailing slash is the same route, a 1.0 route may follow a tenant
//! segment, the 0.3 routes follow `/v1`; names and routes are matched exactly (the agent's
//! are case-sensitive, as the spec's are). The wire-shape audit, the latency figures and the
//! client mode all read operations here.

use serde_json::{Map, Value};

use crate::facts::model::{Binding, ProtocolVersion};

/// The 1.0 operations, with their 0.3 JSON-RPC methods.
pub const METHODS: &[(&str, &str)] = &[
    ("SendMessage", "message/send"),
    ("SendStreamingMessage", "message/stream"),
    ("GetTask", "tasks/get"),
    ("ListTasks", "tasks/list"),
    ("CancelTask", "tasks/cancel"),
    ("SubscribeToTask", "tasks/resubscribe"),
    (
        "CreateTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/set",
    ),
    (
        "GetTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/get",
    ),
    (
        "ListTaskPushNotificationConfigs",
        "tasks/pushNotificationConfig/list",
    ),
    (
        "DeleteTaskPushNotificationConfig",
        "tasks/pushNotificationConfig/delete",
    ),
    ("GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"),
];

/// The operation a JSON-RPC method names, and the version whose name it is.
pub fn jsonrpc_method(name: &str) -> Option<(&'static str, ProtocolVersion)> {
    METHODS.iter().find_map(|(v10, v03)| {
        if *v10 == name {
            Some((*v10, ProtocolVersion::V1_0))
        } else if *v03 == name {
            Some((*v10, ProtocolVersion::V0_3))
        } else {
            None
        }
    })
}

/// The operation a gRPC rpc names (either version's service: the 0.3 service's rpcs that
/// 1.0 renamed are read by their 1.0 name).
pub fn grpc_rpc(rpc: &str) -> Option<&'static str> {
    (METHODS.iter().map(|(v10, _)| *v10).find(|v10| *v10 == rpc)).or(match rpc {
        "TaskSubscription" => Some("SubscribeToTask"),
        "GetAgentCard" => Some("GetExtendedAgentCard"),
        "ListTaskPushNotificationConfig" => Some("ListTaskPushNotificationConfigs"),
        _ => None,
    })
}

/// The version of a gRPC service, when it is an A2A service.
pub fn grpc_service(service: &str) -> Option<ProtocolVersion> {
    match service {
        a2a_proto::SERVICE => Some(ProtocolVersion::V1_0),
        a2a_proto::SERVICE_0_3 => Some(ProtocolVersion::V0_3),
        _ => None,
    }
}

/// An HTTP+JSON route, read from the end of a path.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The operation's 1.0 name.
    pub name: &'static str,
    /// The version whose routes it is (0.3 routes follow `/v1`).
    pub spoken: ProtocolVersion,
    /// The fields the path carries: `id`, `taskId`.
    pub fields: Map<String, Value>,
    /// The path's segments before the route (and before `v1`): the interface's own path,
    /// then a tenant, if any.
    pub before: Vec<String>,
}

impl Route {
    /// The tenant the path carries, given the interface's own path (`/a2a/rest`): the one
    /// segment between it and a 1.0 route; `None` when there is none or `base` is not there.
    pub fn tenant(&self, base: &str) -> Option<String> {
        let base: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
        let under = self.before.len() == base.len() + 1
            && self.before.iter().zip(&base).all(|(a, b)| a == b);
        (under && self.spoken == ProtocolVersion::V1_0).then(|| self.before[base.len()].clone())
    }
}

/// The route of `verb` on `path` (a query is ignored): the longest route of either version
/// its last segments spell; `None` for a path that ends in no route.
pub fn rest_route(verb: &str, path: &str) -> Option<Route> {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    for length in (1..=4.min(segments.len())).rev() {
        let (head, tail) = segments.split_at(segments.len() - length);
        let v03 = head.last() == Some(&"v1");
        let spoken = if v03 {
            ProtocolVersion::V0_3
        } else {
            ProtocolVersion::V1_0
        };
        let Some((name, fields)) = route_of(verb, tail, spoken) else {
            continue;
        };
        let before = &head[..head.len() - usize::from(v03)];
        return Some(Route {
            name,
            spoken,
            fields,
            before: before.iter().map(|s| s.to_string()).collect(),
        });
    }
    None
}

/// The operation of exactly `segments`, a route of `version`.
fn route_of(
    verb: &str,
    segments: &[&str],
    version: ProtocolVersion,
) -> Option<(&'static str, Map<String, Value>)> {
    const CONFIGS: &str = "pushNotificationConfigs";
    let mut fields = Map::new();
    let mut field = |name: &str, value: &str| {
        fields.insert(name.to_owned(), Value::from(value));
    };
    let name = match (verb, segments) {
        ("POST", ["message:send"]) => "SendMessage",
        ("POST", ["message:stream"]) => "SendStreamingMessage",
        ("GET", ["tasks"]) => "ListTasks",
        ("GET", ["extendedAgentCard"]) if version == ProtocolVersion::V1_0 => {
            "GetExtendedAgentCard"
        }
        ("GET", ["card"]) if version == ProtocolVersion::V0_3 => "GetExtendedAgentCard",
        (_, ["tasks", last]) if last.contains(':') => {
            let (id, action) = last.rsplit_once(':')?;
            field("id", id);
            match (verb, action) {
                ("POST", "cancel") => "CancelTask",
                // §11.3.2 says POST, the proto annotation GET: either is read.
                ("POST" | "GET", "subscribe") => "SubscribeToTask",
                _ => return None,
            }
        }
        ("GET", ["tasks", id]) => {
            field("id", id);
            "GetTask"
        }
        (_, ["tasks", task, CONFIGS]) => {
            field("taskId", task);
            match verb {
                "POST" => "CreateTaskPushNotificationConfig",
                "GET" => "ListTaskPushNotificationConfigs",
                _ => return None,
            }
        }
        (_, ["tasks", task, CONFIGS, config]) => {
            field("taskId", task);
            field("id", config);
            match verb {
                "GET" => "GetTaskPushNotificationConfig",
                "DELETE" => "DeleteTaskPushNotificationConfig",
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((name, fields))
}

/// One request, placed: its binding, its operation's 1.0 name and the version whose names it
/// used.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub binding: Binding,
    pub name: &'static str,
    pub spoken: ProtocolVersion,
}

/// The operation of a request: a gRPC call (`grpc`: its path is `/{service}/{rpc}`), a
/// JSON-RPC request (a body with `jsonrpc` and a `method`), else an HTTP+JSON route.
pub fn of_request(verb: &str, path: &str, grpc: bool, body: Option<&Value>) -> Option<Operation> {
    if grpc {
        let mut parts = path.trim_start_matches('/').splitn(2, '/');
        let (service, rpc) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let rpc = rpc.trim_end_matches('/');
        return Some(Operation {
            binding: Binding::Grpc,
            name: grpc_rpc(rpc)?,
            spoken: grpc_service(service).unwrap_or(ProtocolVersion::V1_0),
        });
    }
    let method = body
        .filter(|b| b.get("jsonrpc").is_some())
        .and_then(|b| b.get("method"))
        .and_then(Value::as_str);
    if let Some(method) = method {
        let (name, spoken) = jsonrpc_method(method)?;
        return Some(Operation {
            binding: Binding::Jsonrpc,
            name,
            spoken,
        });
    }
    let route = rest_route(verb, path)?;
    Some(Operation {
        binding: Binding::Rest,
        name: route.name,
        spoken: route.spoken,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rest_routes_are_read_with_tenant_version_and_trailing_slash() {
        let route = rest_route("POST", "/a2a/rest/acme/message:send").unwrap();
        assert_eq!(
            (route.name, route.spoken),
            ("SendMessage", ProtocolVersion::V1_0)
        );
        assert_eq!(route.tenant("/a2a/rest").as_deref(), Some("acme"));
        assert_eq!(
            rest_route("POST", "/a2a/rest/message:send/")
                .unwrap()
                .tenant("/a2a/rest"),
            None
        );
        let route = rest_route("POST", "/a2a/rest/v1/tasks/t-1:cancel").unwrap();
        assert_eq!(
            (route.name, route.spoken),
            ("CancelTask", ProtocolVersion::V0_3)
        );
        assert_eq!(route.fields["id"], "t-1");
        assert_eq!(route.before, vec!["a2a", "rest"]);
        let route = rest_route("POST", "/tasks/t-1/pushNotificationConfigs").unwrap();
        assert_eq!(route.name, "CreateTaskPushNotificationConfig");
        assert_eq!(route.fields["taskId"], "t-1");
        assert_eq!(
            rest_route("GET", "/v1/card").unwrap().name,
            "GetExtendedAgentCard"
        );
        assert_eq!(
            rest_route("GET", "/acme/tasks?pageSize=1").unwrap().name,
            "ListTasks"
        );
        assert_eq!(
            rest_route("GET", "/tasks/abc/").unwrap().fields["id"],
            "abc"
        );
        assert!(rest_route("PUT", "/message:send").is_none());
        assert!(rest_route("POST", "/Message:Send").is_none());
        assert!(rest_route("GET", "/.well-known/agent-card.json").is_none());
    }

    #[test]
    fn requests_of_every_binding() {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "message/send"});
        let op = of_request("POST", "/a2a/jsonrpc/", false, Some(&body)).unwrap();
        assert_eq!(
            (op.binding, op.name, op.spoken),
            (Binding::Jsonrpc, "SendMessage", ProtocolVersion::V0_3)
        );
        let op = of_request("POST", "/a2a.v1.A2AService/TaskSubscription", true, None).unwrap();
        assert_eq!(
            (op.name, op.spoken),
            ("SubscribeToTask", ProtocolVersion::V0_3)
        );
        assert_eq!(jsonrpc_method("tasks/send"), None);
        assert_eq!(
            of_request("GET", "/p/t/a2a/rest/tasks/x", false, None).map(|o| o.name),
            Some("GetTask")
        );
    }
}
