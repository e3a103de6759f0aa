//! The in-memory state: customers, accounts, credentials, sessions, pending signed
//! retries, passkey challenges, quotes, transactions, idempotent responses, the outbox.

use std::collections::HashMap;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{Method, StatusCode};
use p256::ecdsa::VerifyingKey;
use serde_json::{json, Value};

use crate::util::{new_id, now_ms, rfc3339, uuid_v4};

/// Credential types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredKind {
    EmailOtp,
    Oauth,
    Passkey,
}

impl CredKind {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "EMAIL_OTP" => Some(Self::EmailOtp),
            "OAUTH" => Some(Self::Oauth),
            "PASSKEY" => Some(Self::Passkey),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::EmailOtp => "EMAIL_OTP",
            Self::Oauth => "OAUTH",
            Self::Passkey => "PASSKEY",
        }
    }
}

pub struct Customer {
    pub id: String,
    pub email: String,
    /// E.164, once set through `PATCH /customers/{id}`.
    pub phone_number: Option<String>,
    pub updated_ms: i64,
}

impl Customer {
    /// As `PATCH /customers/{id}` answers it.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "email": self.email,
            "phoneNumber": self.phone_number,
            "updatedAt": rfc3339(self.updated_ms),
        })
    }
}

pub struct Account {
    pub id: String,
    pub customer_id: String,
    /// EMBEDDED_WALLET, INTERNAL_FIAT.
    pub kind: &'static str,
    pub balance: i64,
    pub privacy_enabled: bool,
    /// The (emulated) signing organization and wallet behind an embedded wallet.
    pub organization_id: String,
    pub wallet_id: String,
    pub created_ms: i64,
    pub updated_ms: i64,
}

pub struct Passkey {
    pub credential_id: String,
    pub public_key: Option<VerifyingKey>,
    pub counter: u32,
    pub transports: Vec<String>,
}

pub struct Credential {
    pub id: String,
    pub account_id: String,
    pub kind: CredKind,
    pub nickname: String,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub revoked: bool,
    /// EMAIL_OTP (strict): the code last sent and until when it is valid.
    pub otp: Option<(String, i64)>,
    /// OAUTH: (iss, sub) of the identity.
    pub oauth: Option<(String, String)>,
    pub passkey: Option<Passkey>,
    pub last_challenge_ms: Option<i64>,
}

pub struct SessionRec {
    pub id: String,
    pub account_id: String,
    pub credential_id: String,
    pub kind: CredKind,
    pub nickname: String,
    pub passkey_credential_id: Option<String>,
    pub created_ms: i64,
    pub expires_ms: i64,
    /// Strict mode: compressed hex of the session public key.
    pub public_key: Option<String>,
    pub revoked: bool,
}

/// What a signed retry, once authorized, will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    AddCredential,
    RevokeCredential,
    RevokeSession,
    Refresh,
    Export,
    PatchAccount,
    UpdateCustomer,
    /// The second leg of an encrypted-OTP verify, signed by the TEK.
    OtpLogin,
}

pub struct Pending {
    pub method: Method,
    pub path: String,
    pub body: Bytes,
    pub payload: String,
    pub account_id: String,
    pub expires_ms: i64,
    pub purpose: Purpose,
    /// When set, the compressed key that must sign (the OTP login's TEK), not a session.
    pub signer_key: Option<String>,
    pub used: bool,
}

pub struct PasskeyChallenge {
    pub credential_id: String,
    pub challenge: String,
    pub client_public_key: String,
    pub expires_ms: i64,
    pub used: bool,
}

pub struct Quote {
    pub id: String,
    pub json: Value,
    pub source_account: String,
    pub destination_account: String,
    pub amount: i64,
    pub payload: Option<String>,
    pub expires_ms: i64,
    pub transaction_id: String,
    pub status: &'static str,
}

pub struct OutboxEntry {
    pub account_id: String,
    pub email: String,
    pub otp: String,
    pub sent_ms: i64,
}

/// A stored response for an Idempotency-Key.
#[derive(Clone)]
pub struct StoredResponse {
    pub status: StatusCode,
    pub body: Value,
}

#[derive(Default)]
pub struct State {
    pub customers: Vec<Customer>,
    pub accounts: Vec<Account>,
    pub credentials: Vec<Credential>,
    pub sessions: Vec<SessionRec>,
    pub pending: HashMap<String, Pending>,
    pub challenges: HashMap<String, PasskeyChallenge>,
    pub quotes: Vec<Quote>,
    /// Newest last.
    pub transactions: Vec<Value>,
    pub idempotent: HashMap<(String, String), StoredResponse>,
    pub outbox: Vec<OutboxEntry>,
    /// The platform's API token lacks the TRANSACT permission (quotes answer 403).
    pub transact_forbidden: bool,
    /// Operations answering PROCESSING (`api::processing`).
    pub processing: Book,
}

/// The one currency the emulator moves.
pub fn usd() -> Value {
    json!({"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2})
}

impl State {
    /// A customer with one internal account of `kind`; returns (customer, account) ids.
    pub fn create_customer_account(&mut self, email: &str, kind: &'static str) -> (String, String) {
        let now = now_ms();
        let customer = Customer {
            id: new_id("Customer"),
            email: email.to_owned(),
            phone_number: None,
            updated_ms: now,
        };
        let account = Account {
            id: new_id("InternalAccount"),
            customer_id: customer.id.clone(),
            kind,
            balance: 0,
            privacy_enabled: false,
            organization_id: uuid_v4(),
            wallet_id: uuid_v4(),
            created_ms: now,
            updated_ms: now,
        };
        let ids = (customer.id.clone(), account.id.clone());
        self.customers.push(customer);
        self.accounts.push(account);
        ids
    }

    pub fn account(&self, id: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.id == id)
    }

    pub fn account_mut(&mut self, id: &str) -> Option<&mut Account> {
        self.accounts.iter_mut().find(|a| a.id == id)
    }

    pub fn customer(&self, id: &str) -> Option<&Customer> {
        self.customers.iter().find(|c| c.id == id)
    }

    pub fn customer_mut(&mut self, id: &str) -> Option<&mut Customer> {
        self.customers.iter_mut().find(|c| c.id == id)
    }

    pub fn credential(&self, id: &str) -> Option<&Credential> {
        self.credentials.iter().find(|c| c.id == id && !c.revoked)
    }

    pub fn credential_mut(&mut self, id: &str) -> Option<&mut Credential> {
        self.credentials
            .iter_mut()
            .find(|c| c.id == id && !c.revoked)
    }

    pub fn active_credentials(&self, account_id: &str) -> impl Iterator<Item = &Credential> {
        let account_id = account_id.to_owned();
        self.credentials
            .iter()
            .filter(move |c| c.account_id == account_id && !c.revoked)
    }

    pub fn session(&self, id: &str) -> Option<&SessionRec> {
        self.sessions.iter().find(|s| s.id == id)
    }

    pub fn account_email(&self, account_id: &str) -> String {
        self.account(account_id)
            .and_then(|a| self.customer(&a.customer_id))
            .map(|c| c.email.clone())
            .unwrap_or_default()
    }

    /// The account's organization id (the activities' `organizationId`); empty for an
    /// unknown account.
    pub fn account_organization_id(&self, account_id: &str) -> String {
        self.account(account_id)
            .map(|a| a.organization_id.clone())
            .unwrap_or_default()
    }
}

impl Account {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "type": self.kind,
            "status": "ACTIVE",
            "customerId": self.customer_id,
            "balance": {"amount": self.balance, "currency": usd()},
            "fundingPaymentInstructions": [],
            "privateEnabled": self.privacy_enabled,
            "privacyEnabled": self.privacy_enabled,
            "createdAt": rfc3339(self.created_ms),
            "updatedAt": rfc3339(self.updated_ms),
        })
    }
}

impl Credential {
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "id": self.id,
            "accountId": self.account_id,
            "type": self.kind.as_str(),
            "nickname": self.nickname,
            "createdAt": rfc3339(self.created_ms),
            "updatedAt": rfc3339(self.updated_ms),
        });
        if let Some(p) = &self.passkey {
            v["credentialId"] = json!(p.credential_id);
        }
        v
    }
}

impl SessionRec {
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "id": self.id,
            "accountId": self.account_id,
            "type": self.kind.as_str(),
            "nickname": self.nickname,
            "createdAt": rfc3339(self.created_ms),
            "updatedAt": rfc3339(self.created_ms),
            "expiresAt": rfc3339(self.expires_ms),
        });
        if let Some(id) = &self.passkey_credential_id {
            v["credentialId"] = json!(id);
        }
        v
    }
}

/// The operations that can answer PROCESSING, named as the service's webhook names them
/// (`operationType`) where it does.
pub const OPERATIONS: [&str; 9] = [
    "auth_credential.create",
    "auth_credential.challenge",
    "auth_credential.delete",
    "auth_credential.verify",
    "session.refresh",
    "session.revoke",
    "account.update",
    "customer.update",
    "wallet.export",
];

/// How many PROCESSING answers each operation gives, and when a held one settles.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per operation (absent: 0).
    pub counts: HashMap<&'static str, u32>,
    /// After this long an operation still processing runs on its own.
    pub settle_after: Duration,
}

impl Default for Plan {
    fn default() -> Self {
        Self {
            counts: HashMap::new(),
            settle_after: Duration::from_secs(10),
        }
    }
}

impl Plan {
    /// Every operation answers PROCESSING `count` times.
    pub fn all(count: u32, settle_after: Duration) -> Self {
        Self {
            counts: OPERATIONS.iter().map(|op| (*op, count)).collect(),
            settle_after,
        }
    }

    /// As `GET /emulator/processing` shows it.
    pub fn to_json(&self) -> Value {
        let counts: serde_json::Map<String, Value> = OPERATIONS
            .iter()
            .map(|op| {
                (
                    (*op).to_owned(),
                    json!(self.counts.get(op).copied().unwrap_or(0)),
                )
            })
            .collect();
        json!({"operations": counts, "settleMs": self.settle_after.as_millis() as u64})
    }
}

/// A request the emulator answered PROCESSING to, until it settles: a signed retry (held
/// by its Request-Id) or a login leg, which carries none (held by method and path).
pub struct Held {
    pub operation: &'static str,
    pub method: Method,
    pub path: String,
    pub body: Bytes,
    /// The `Service-Wallet-Signature` and `Request-Id` it came with (a login leg: none).
    pub signature: Option<String>,
    pub request_id: Option<String>,
    /// A login leg, held by method and path: its terminal answer is given once.
    pub login: bool,
    /// PROCESSING answers still to give.
    pub remaining: u32,
    pub started_ms: i64,
    /// The operation itself runs (a re-send after the last PROCESSING, or settling).
    pub running: bool,
    /// What it answered when it ran: given again to every identical re-send.
    pub terminal: Option<(StatusCode, Bytes)>,
}

/// The held operations, by request id, and the plan.
#[derive(Default)]
pub struct Book {
    pub plan: Plan,
    pub held: HashMap<String, Held>,
}
