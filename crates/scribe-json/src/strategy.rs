//! Arbitrary JSON values for property tests (the `proptest` feature): the crate's own tests
//! and its users' tests of code that reads or writes JSON draw from the same values.

use proptest::prelude::*;
use serde_json::Value;

/// Arbitrary JSON values, strings drawn to hit every escape and the word boundaries.
pub fn value() -> impl Strategy<Value = Value> {
    let text = prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('\u{1}'),
            Just('\u{1f}'),
            Just('\u{7f}'),
            Just('é'),
            Just('😀'),
            any::<char>(),
            prop::char::range(' ', '~'),
        ],
        0..40,
    )
    .prop_map(|c| c.into_iter().collect::<String>());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text.clone().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((text.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
