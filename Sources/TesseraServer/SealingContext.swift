import TesseraStore

/// The context a value is sealed with under the master key (`SecretBox` authenticates
/// it): its purpose and its row, so a sealed value copied to another row or column does
/// not open. `tessera rekey` opens and seals every sealed column with these; a new sealed
/// column needs a case in `SealedColumn` and here.
enum SealingContext {
    static func signingKey(kid: String) -> String { "signing-key:\(kid)" }
    static func pinKey(activationID: String) -> String { "pin-key:\(activationID)" }
    static func totpSecret(activationID: String) -> String { "totp:\(activationID)" }
    static func invitationPinKey(invitationID: String) -> String { "invitation-pin-key:\(invitationID)" }
    static func notificationToken(requestID: String) -> String { "ciba-notification:\(requestID)" }

    /// The context of the value in `column` of the row keyed `rowID`.
    static func of(_ column: SealedColumn, rowID: String) -> String {
        switch column {
        case .signingKeys: signingKey(kid: rowID)
        case .activationPinKeys: pinKey(activationID: rowID)
        case .activationTOTPSecrets: totpSecret(activationID: rowID)
        case .invitationPinKeys: invitationPinKey(invitationID: rowID)
        case .notificationTokens: notificationToken(requestID: rowID)
        }
    }
}
