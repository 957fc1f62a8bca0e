import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraCore
import TesseraKit
import TesseraKitCompat

/// What the samples of docs/SDK.md take as given: the app's parts and values, and the
/// app's own functions (asking for the PIN, showing things, its server). Each sample is a
/// method of this type (Samples.swift, written by scripts/sdk_samples.py), compiled with the
/// suite and never run.
@MainActor
struct DocSamples {
    var store: any KeyStore
    var gate: any BiometricGate
    var personalizer: Personalizer
    var authenticator: Authenticator
    var tokens: TokenManager
    var info: AuthenticationUserInformation
    var activation: Activation
    var invitation: URL
    var scannedURL: URL
    var storeDirectory: URL
    var apiURL: URL
    var request: URLRequest
    var securityKey: any SecurityKeyAuthenticator
    var oldPIN: String
    var newPIN: String
    var appID: String
    var appRedirect: String
    var backendID: String
    var backendRedirect: String
    var challenge: String
    var state: String
    var pharmacyID: String
    var pharmacyRedirect: String
    var challengeFromPharmacyBackend: String
    var apnsTokenHex: String
    var authReqIDFromMyServer: String
    var sessionFromPush: String
    var myServer: AppServer
    var pharmacyBackend: AppServer
    var approvalScreen: ApprovalScreen
    #if canImport(AuthenticationServices)
    var window: ASPresentationAnchorStandIn
    #endif
}

// The app's own functions the samples call.
func askForPIN() async throws -> String { "" }
func numberTheUserPicks(_ choices: [String]) async -> String { choices.first ?? "" }
func userApproves(_ request: PendingAuthentication) async -> Bool { true }
func show(_ values: Any...) {}
func showApproval(_ information: AuthenticationUserInformation) {}

/// The app's own server.
struct AppServer {
    func confirm(_ identityToken: String?) async throws {}
    func redeem(_ code: String) async throws {}
}

/// A screen of the app that hears how a step-up ended.
@MainActor
final class ApprovalScreen: StepUpDelegate {
    func stepUp(_ stepUp: StepUp, didFinish response: StepUpResponse) {}
    func stepUp(_ stepUp: StepUp, didCancel response: StepUpResponse) {}
    func stepUp(_ stepUp: StepUp, didFail response: StepUpResponse) {}
}

#if canImport(AuthenticationServices)
import AuthenticationServices
typealias ASPresentationAnchorStandIn = ASPresentationAnchor
#endif
