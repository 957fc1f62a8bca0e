import SwiftASN1
import X509

/// The certificates a tenant trusts to attest its users' security keys, from PEM text.
public enum TrustAnchors {
    /// Every `CERTIFICATE` block of `pem`; throws for anything that is not one.
    public static func certificates(pem: String) throws -> [Certificate] {
        try PEMDocument.parseMultiple(pemString: pem).map { document in
            guard document.discriminator == "CERTIFICATE" else { throw WebAuthnAnchorError() }
            return try Certificate(derEncoded: document.derBytes)
        }
    }

    struct WebAuthnAnchorError: Error {}
}
