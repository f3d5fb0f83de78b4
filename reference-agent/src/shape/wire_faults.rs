//! The wire-shape faults (`wire-*`): each breaks one rule of the strict wire schemas the kit
//! validates every received message against.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Wire;
use crate::fault::Fault;

/// Members that hold user data, never rewritten.
const USER_DATA: &[&str] = &["data", "metadata"];

/// Calls `f` on every object of `value` (depth first), not looking into user data.
fn each_object(value: &mut Value, f: &mut dyn FnMut(&mut serde_json::Map<String, Value>)) {
    match value {
        Value::Object(object) => {
            f(object);
            for (key, member) in object.iter_mut() {
                if !USER_DATA.contains(&key.as_str()) {
                    each_object(member, f);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| each_object(item, f)),
        _ => {}
    }
}

/// Whether an object is a Task (1.0 ProtoJSON: an id and a status, no taskId).
fn is_task(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("id") && object.contains_key("status") && !object.contains_key("taskId")
}

/// Faults on the 1.0 ProtoJSON of a result or stream event, before any 0.3 conversion.
pub(super) fn before_codec(faults: &BTreeSet<Fault>, wire: Wire, event: bool, value: &mut Value) {
    let has = |f: Fault| faults.contains(&f);
    if has(Fault::WireStreamOtherTaskId) && event {
        if let Some(Value::String(id)) = value
            .get_mut("statusUpdate")
            .and_then(|u| u.get_mut("taskId"))
        {
            id.push_str("-other");
        }
    }
    if wire != Wire::V1_0 {
        return;
    }
    each_object(value, &mut |object| {
        if has(Fault::WirePartTwoMembers) && object.get("text").is_some_and(Value::is_string) {
            object.insert("url".into(), Value::from("https://example.invalid/part"));
        }
        if has(Fault::WireRawNotBase64) && object.get("raw").is_some_and(Value::is_string) {
            object.insert("raw".into(), Value::from("tck!"));
        }
        if has(Fault::WireBadEnumValue) {
            if let Some(Value::String(state)) = object.get_mut("state") {
                if state.starts_with("TASK_STATE_") {
                    *state = "TASK_STATE_PAUSED".into();
                }
            }
        }
        if has(Fault::WireOtherVersionField) {
            if is_task(object) {
                object.insert("kind".into(), Value::from("task"));
            }
            if object.contains_key("taskId") && object.contains_key("status") {
                object.insert("final".into(), Value::Bool(false));
            }
        }
    });
    if has(Fault::WireMissingRequiredField) {
        strip_task_status(value);
    }
}

/// Faults on the 0.3 form, after the conversion.
pub(super) fn after_codec(faults: &BTreeSet<Fault>, value: &mut Value) {
    if faults.contains(&Fault::WireOtherVersionField) {
        each_object(value, &mut |object| {
            let text_part = object.get("text").is_some_and(Value::is_string)
                && object.get("kind").is_none_or(|k| k == &Value::from("text"));
            if text_part && !object.contains_key("messageId") {
                object.insert("mediaType".into(), Value::from("text/plain"));
            }
        });
    }
    if faults.contains(&Fault::WireMissingRequiredField) {
        strip_task_status(value);
    }
}

/// Removes `status` from every Task (not from status-update events).
fn strip_task_status(value: &mut Value) {
    each_object(value, &mut |object| {
        if is_task(object) {
            object.remove("status");
        }
    });
}
