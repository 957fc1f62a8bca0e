import TesseraCore
import TesseraRecords
import TesseraStore

/// The context a value is sealed with under the master key (`SecretBox` authenticates
/// it): its purpose and its row, so a sealed value copied to another row or column does
/// not open. `tessera rekey` opens and seals every sealed column with these; a new sealed
/// column needs a case in `SealedColumn` and here.
public enum SealingContext {
    public static func signingKey(kid: String) -> String { "signing-key:\(kid)" }
    public static func pinKey(activationID: ActivationID) -> String { "pin-key:\(activationID)" }
    public static func totpSecret(activationID: ActivationID) -> String { "totp:\(activationID)" }
    public static func invitationPinKey(invitationID: String) -> String { "invitation-pin-key:\(invitationID)" }
    public static func notificationToken(requestID: RequestID) -> String { "ciba-notification:\(requestID)" }
    public static func masterKeyCheck(id: String) -> String { "master-key-check:\(id)" }
    public static func identityProviderSecret(id: String) -> String { "identity-provider-secret:\(id)" }
    public static func webhookSecret(id: String) -> String { "webhook-secret:\(id)" }
    public static func messageContent(id: String) -> String { "message:\(id)" }

    /// The context of the value in `column` of the row keyed `rowID`.
    public static func of(_ column: SealedColumn, rowID: String) -> String {
        switch column {
        case .signingKeys: signingKey(kid: rowID)
        case .activationPinKeys: pinKey(activationID: ActivationID(rowID))
        case .activationTOTPSecrets: totpSecret(activationID: ActivationID(rowID))
        case .invitationPinKeys: invitationPinKey(invitationID: rowID)
        case .notificationTokens: notificationToken(requestID: RequestID(rowID))
        case .masterKeyCheck: masterKeyCheck(id: rowID)
        case .identityProviderSecrets: identityProviderSecret(id: rowID)
        case .webhookSecrets: webhookSecret(id: rowID)
        case .messageContents: messageContent(id: rowID)
        }
    }
}
