//! `inspectPayload`: what a payload to sign authorizes, for a wallet UI to show first.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use embedded_wallet_kit::ErrorCode;
use ewk_common::js::exact_string;
use ewk_common::scrubbed;
use ewk_common::to_js;

/// What `payloadToSign` would authorize; JSON that readers could read two ways is
/// `INVALID_INPUT`.
#[wasm_bindgen(js_name = inspectPayload, unchecked_return_type = "PayloadInspection")]
pub fn inspect_payload(
    #[wasm_bindgen(js_name = payloadToSign, unchecked_param_type = "string")] payload: &JsValue,
) -> Result<Object, JsValue> {
    scrubbed(|| {
        let payload = exact_string(payload, "payloadToSign", ErrorCode::InvalidInput)?;
        let inspection = embedded_wallet_kit::inspect_payload(&payload).map_err(to_js)?;
        let out = Object::new();
        let put = |name: &str, value: &JsValue| {
            // Defining data properties on a fresh plain object cannot fail.
            let _ = Reflect::set(&out, &JsValue::from_str(name), value);
        };
        put("json", &JsValue::from_bool(inspection.json));
        let keys: Array = inspection
            .target_public_keys
            .iter()
            .map(|k| JsValue::from_str(k))
            .collect();
        put("targetPublicKeys", &keys);
        for (name, value) in [
            ("activityType", &inspection.activity_type),
            ("organizationId", &inspection.organization_id),
            ("timestampMs", &inspection.timestamp_ms),
            ("amount", &inspection.amount),
            ("currency", &inspection.currency),
            ("source", &inspection.source),
            ("destination", &inspection.destination),
            ("quoteId", &inspection.quote_id),
            ("walletId", &inspection.wallet_id),
        ] {
            if let Some(value) = value {
                put(name, &JsValue::from_str(value));
            }
        }
        Ok(out)
    })
}
