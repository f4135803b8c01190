use super::*;

#[test]
fn envelopes_are_recognised() {
    let o: Map<String, Value> =
        serde_json::from_str(r#"{"id":1,"v":1,"type":"x","data":{}}"#).unwrap();
    assert!(is_envelope(&o));
}
