// The signing-only module's glue as the signing entry uses it: wasm-bindgen's exports, with
// ClientKey and Session the kit's handle classes (js/handles.js) over its raw ones.
import * as glue from './embedded_wallet_kit_signing.js';
import { handleClasses } from './handles.js';
import { signingReady } from './guard.js';

export { default, initSync, selfTest, warmUp } from './embedded_wallet_kit_signing.js';

export const { ClientKey, Session } = handleClasses(glue, signingReady);
