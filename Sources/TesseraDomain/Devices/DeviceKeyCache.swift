import Crypto
import Synchronization
import TesseraCore
import TesseraRecords

/// The activations whose device key signed a call on this node lately, by id, with that
/// key decoded: what the claim and the finish check a device's signature with, instead of
/// reading the activation before their transaction (on PostgreSQL a round trip each).
///
/// Kept without news from other nodes, because nothing kept here is trusted for more than
/// the signature: no statement changes an activation's id, tenant or device key (a new key
/// is a new activation), and both calls read the activation again inside their transaction,
/// where one that is gone, inactive, locked or its user disabled is refused as before. Only
/// keys that verified a signature are kept, so a stranger cannot fill it; it is bounded by
/// age and by count (at `capacity`, what is older than `maximumAge` goes, and if that
/// frees less than a quarter, everything).
final class DeviceKeyCache: Sendable {
    static let capacity = 4_096
    static let maximumAge: Duration = .seconds(600)

    struct Kept: Sendable {
        /// The activation as it was read when its key was kept: only its id, tenant, user
        /// and keys are used before the transaction reads it again.
        let activation: ActivationRecord
        let key: P256.Signing.PublicKey
        let keptAt: ContinuousClock.Instant
    }

    private let entries = Mutex([ActivationID: Kept]())

    /// The activation's kept key, if it is of `tenant` and young enough.
    func lookup(_ id: ActivationID, tenant: TenantID) -> Kept? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let kept = entries[id], kept.activation.tenantID == tenant, now - kept.keptAt < Self.maximumAge else { return nil }
            return kept
        }
    }

    /// Keeps an activation whose device key (`key`) just verified a signature.
    func keep(_ activation: ActivationRecord, key: P256.Signing.PublicKey) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[activation.id] == nil {
                entries = entries.filter { now - $0.value.keptAt < Self.maximumAge }
                // Unless the sweep freed a quarter, start again: a sweep per new key would
                // cost each one a pass over all of them.
                if entries.count > Self.capacity * 3 / 4 { entries.removeAll(keepingCapacity: true) }
            }
            entries[activation.id] = Kept(activation: activation, key: key, keptAt: now)
        }
    }
}
