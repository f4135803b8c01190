use super::*;

#[test]
fn sniffing() {
    assert!(looks_like_sse("retry: 3000"));
    assert!(looks_like_sse(": heartbeat"));
    assert!(!looks_like_sse("{\"type\":\"system\"}"));
    let o: Map<String, Value> =
        serde_json::from_str(r#"{"id":1,"v":1,"type":"x","data":{}}"#).unwrap();
    assert!(is_envelope(&o));
}
