// Compiled (not run) by `make lint-js`: the package's declarations of what page script
// calls through to the wasm modules (ClientKey and Session, the handle classes of
// npm/guard.js; the wallet module's functions; SoftAuthenticator, the testing glue's own
// class) agree with wasm-bindgen's declarations of the glue (tests/types/glue/, which
// `make build` checks against what it generates): every member and function has the same
// parameters and result, a glue class standing for the handle class of the same name. The
// glue's `[Symbol.dispose]` is left out of the package's declarations (users' `tsc` need
// not have `esnext.disposable`); every other member is declared.
import type * as main from 'embedded-wallet-kit';
import type * as signing from 'embedded-wallet-kit/signing';
import type * as testing from 'embedded-wallet-kit/testing';
import type * as mainGlue from './glue/embedded_wallet_kit.js';
import type * as signingGlue from './glue/embedded_wallet_kit_signing.js';
import type * as testingGlue from './glue/embedded_wallet_kit_testing.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

/** A handle class, declared or the glue's, by name (structurally: the two differ only in `[Symbol.dispose]`). */
type Named<T> = T extends main.ClientKey | mainGlue.ClientKey | signingGlue.ClientKey
  ? 'ClientKey'
  : T extends main.Session | mainGlue.Session | signingGlue.Session
    ? 'Session'
    : T;
type NamedAll<T extends readonly unknown[]> = { [I in keyof T]: Named<T[I]> };

/** A member's or function's shape with the handle classes named: its parameters and result. */
type Shape<F> = F extends (...args: infer A) => infer R
  ? { args: NamedAll<A>; result: Named<R> }
  : F extends abstract new (...args: infer A) => unknown
    ? { constructs: NamedAll<A> }
    : Named<F>;

/** For each member: true when declared and glue agree, else both shapes (so the error shows them). */
type Agree<Declared, Glue> = {
  [K in keyof Glue | keyof Declared]: K extends typeof Symbol.dispose
    ? true
    : K extends keyof Declared
      ? K extends keyof Glue
        ? Equal<Shape<Declared[K]>, Shape<Glue[K]>> extends true
          ? true
          : { declared: Shape<Declared[K]>; glue: Shape<Glue[K]> }
        : 'declared, not in the glue'
      : 'in the glue, not declared';
};
type AllTrue<T> = { [K in keyof T]: true };
/** The static side of a class without `prototype`. */
type Statics<C> = Omit<C, 'prototype'>;

export const clientKey: AllTrue<Agree<main.ClientKey, mainGlue.ClientKey>> = {} as Agree<main.ClientKey, mainGlue.ClientKey>;
export const clientKeyStatics: AllTrue<Agree<Statics<typeof main.ClientKey>, Statics<typeof mainGlue.ClientKey>>> =
  {} as Agree<Statics<typeof main.ClientKey>, Statics<typeof mainGlue.ClientKey>>;
export const session: AllTrue<Agree<main.Session, mainGlue.Session>> = {} as Agree<main.Session, mainGlue.Session>;
export const sessionStatics: AllTrue<Agree<Statics<typeof main.Session>, Statics<typeof mainGlue.Session>>> =
  {} as Agree<Statics<typeof main.Session>, Statics<typeof mainGlue.Session>>;

type Functions = Pick<typeof main, 'inspectPayload' | 'encryptOtp' | 'openWalletExport'>;
export const functions: AllTrue<Agree<Functions, Pick<typeof mainGlue, keyof Functions>>> =
  {} as Agree<Functions, Pick<typeof mainGlue, keyof Functions>>;

// The signing entry declares the main entry's classes: the signing module's must match them too.
export const signingClientKey: AllTrue<Agree<signing.ClientKey, signingGlue.ClientKey>> = {} as Agree<signing.ClientKey, signingGlue.ClientKey>;
export const signingClientKeyStatics: AllTrue<Agree<Statics<typeof signing.ClientKey>, Statics<typeof signingGlue.ClientKey>>> =
  {} as Agree<Statics<typeof signing.ClientKey>, Statics<typeof signingGlue.ClientKey>>;
export const signingSession: AllTrue<Agree<signing.Session, signingGlue.Session>> = {} as Agree<signing.Session, signingGlue.Session>;
export const signingSessionStatics: AllTrue<Agree<Statics<typeof signing.Session>, Statics<typeof signingGlue.Session>>> =
  {} as Agree<Statics<typeof signing.Session>, Statics<typeof signingGlue.Session>>;

export const softAuthenticator: AllTrue<Agree<testing.SoftAuthenticator, testingGlue.SoftAuthenticator>> =
  {} as Agree<testing.SoftAuthenticator, testingGlue.SoftAuthenticator>;
export const softAuthenticatorStatics: AllTrue<Agree<Statics<typeof testing.SoftAuthenticator>, Statics<typeof testingGlue.SoftAuthenticator>>> =
  {} as Agree<Statics<typeof testing.SoftAuthenticator>, Statics<typeof testingGlue.SoftAuthenticator>>;
export const softAuthenticatorConstructor: Equal<Shape<typeof testing.SoftAuthenticator>, Shape<typeof testingGlue.SoftAuthenticator>> = true;
