import Foundation
import Testing
import TesseraCrypto
import TesseraWebAuthn

/// Registrations and assertions recorded from real authenticators (YubiKeys among them),
/// as py_webauthn's test suite publishes them (duo-labs/py_webauthn, tests/): relying
/// party `localhost`, origin `http://localhost:5000`. They parse and verify here as they
/// do there, and their tampered forms are refused.
@Suite("WebAuthn example vectors (py_webauthn's recorded ceremonies)")
struct WebAuthnVectorTests {
    let party = RelyingParty(id: "localhost", origins: ["http://localhost:5000", "https://foo.bar"])

    static func bytes(_ text: String) -> [UInt8] { Array(Base64URL.decode(text) ?? Data()) }

    struct Registration: Sendable, CustomStringConvertible {
        let name: String
        let credentialID: String
        let attestationObject: String
        let clientDataJSON: String
        let challenge: String
        let format: String
        let trust: RelyingParty.AttestationTrust
        let algorithm: COSEAlgorithm
        let signCount: UInt32
        var description: String { name }
    }

    static let registrations: [Registration] = [
        Registration(
            name: "none attestation (test_verifies_none_attestation_response)",
            credentialID: "9y1xA8Tmg1FEmT-c7_fvWZ_uoTuoih3OvR45_oAK-cwHWhAbXrl2q62iLVTjiyEZ7O7n-CROOY494k7Q3xrs_w",
            attestationObject:
                "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVjESZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAFwAAAAAAAAAAAAAAAAAAAAAAQPctcQPE5oNRRJk_nO_371mf7qE7qIodzr0eOf6ACvnMB1oQG165dqutoi1U44shGezu5_gkTjmOPeJO0N8a7P-lAQIDJiABIVggSFbUJF-42Ug3pdM8rDRFu_N5oiVEysPDB6n66r_7dZAiWCDUVnB39FlGypL-qAoIO9xWHtJygo2jfDmHl-_eKFRLDA",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiVHdON240V1R5R0tMYzRaWS1xR3NGcUtuSE00bmdscXN5VjBJQ0psTjJUTzlYaVJ5RnRya2FEd1V2c3FsLWdrTEpYUDZmbkYxTWxyWjUzTW00UjdDdnciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            challenge: "TwN7n4WTyGKLc4ZY-qGsFqKnHM4nglqsyV0ICJlN2TO9XiRyFtrkaDwUvsql-gkLJXP6fnF1MlrZ53Mm4R7Cvw", format: "none", trust: .none,
            algorithm: .es256, signCount: 23),
        Registration(
            name: "packed, YubiKey in Firefox, x5c (test_verify_attestation_from_yubikey_firefox)",
            credentialID: "syGQPDZRUYdb4m3rdWeyPaIMYlbmydGp1TP_33vE_lqJ3PHNyTd0iKsnKr5WjnCcBzcesZrDEfB_RBLFzU3k4w",
            attestationObject:
                "o2NmbXRmcGFja2VkZ2F0dFN0bXSjY2FsZyZjc2lnWEcwRQIhAOfrFlQpbavT6dJeTDJSCDzYSYPjBDHli2-syT2c1IiKAiAx5gQ2z5cHjdQX-jEHTb7JcjfQoVSW8fXszF5ihSgeOGN4NWOBWQLBMIICvTCCAaWgAwIBAgIEKudiYzANBgkqhkiG9w0BAQsFADAuMSwwKgYDVQQDEyNZdWJpY28gVTJGIFJvb3QgQ0EgU2VyaWFsIDQ1NzIwMDYzMTAgFw0xNDA4MDEwMDAwMDBaGA8yMDUwMDkwNDAwMDAwMFowbjELMAkGA1UEBhMCU0UxEjAQBgNVBAoMCVl1YmljbyBBQjEiMCAGA1UECwwZQXV0aGVudGljYXRvciBBdHRlc3RhdGlvbjEnMCUGA1UEAwweWXViaWNvIFUyRiBFRSBTZXJpYWwgNzE5ODA3MDc1MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEKgOGXmBD2Z4R_xCqJVRXhL8Jr45rHjsyFykhb1USGozZENOZ3cdovf5Ke8fj2rxi5tJGn_VnW4_6iQzKdIaeP6NsMGowIgYJKwYBBAGCxAoCBBUxLjMuNi4xLjQuMS40MTQ4Mi4xLjEwEwYLKwYBBAGC5RwCAQEEBAMCBDAwIQYLKwYBBAGC5RwBAQQEEgQQbUS6m_bsLkm5MAyP6SDLczAMBgNVHRMBAf8EAjAAMA0GCSqGSIb3DQEBCwUAA4IBAQByV9A83MPhFWmEkNb4DvlbUwcjc9nmRzJjKxHc3HeK7GvVkm0H4XucVDB4jeMvTke0WHb_jFUiApvpOHh5VyMx5ydwFoKKcRs5x0_WwSWL0eTZ5WbVcHkDR9pSNcA_D_5AsUKOBcbpF5nkdVRxaQHuuIuwV4k1iK2IqtMNcU8vL6w21U261xCcWwJ6sMq4zzVO8QCKCQhsoIaWrwz828GDmPzfAjFsJiLJXuYivdHACkeJ5KHMt0mjVLpfJ2BCML7_rgbmvwL7wBW80VHfNdcKmKjkLcpEiPzwcQQhiN_qHV90t-p4iyr5xRSpurlP5zic2hlRkLKxMH2_kRjhqSn4aGF1dGhEYXRhWMRJlg3liA6MaHQ0Fw9kdmBbj-SuuaKGMseZXPO6gx2XY0UAAAA0bUS6m_bsLkm5MAyP6SDLcwBAsyGQPDZRUYdb4m3rdWeyPaIMYlbmydGp1TP_33vE_lqJ3PHNyTd0iKsnKr5WjnCcBzcesZrDEfB_RBLFzU3k46UBAgMmIAEhWCBAX_i3O3DvBnkGq_uLNk_PeAX5WwO_MIxBp0mhX6Lw7yJYIOW-1-Fch829McWvRUYAHTWZTx5IycKSGECL1UzUaK_8",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiOExCQ2lPWTNxMWNCWkhGQVd0UzRBWlpDaHpHcGh5NjdsSzdJNzB6S2k0eUM3cGdyUTJQY2g3bkFqTGsxd3E5Z3Jlc2hJQXNXMkFqaWJoWGpqSTBUbVEiLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            challenge: "8LBCiOY3q1cBZHFAWtS4AZZChzGphy67lK7I70zKi4yC7pgrQ2Pch7nAjLk1wq9greshIAsW2AjibhXjjI0TmQ", format: "packed",
            trust: .unverifiedCertificate, algorithm: .es256, signCount: 52),
        Registration(
            name: "packed, YubiKey, Ed25519 credential, x5c (test_verify_attestation_with_okp_public_key)",
            credentialID:
                "WlHiMqH6UhUs-d43z-aGlE3nsXuEOQpa9P9pwpqb4tmvtBMBfGvAV2wUrqBCDENjkkxd6kIRzZQKcluyOFlyW_vXVZSAEgod1xj-1QmFpuwyBVnlkQGefRbmUjbEt5iE4q3tdjy65EWIekO0SNjCQx3LxIJMzi25fgUkI9Y-gg0",
            attestationObject:
                "o2NmbXRmcGFja2VkZ2F0dFN0bXSjY2FsZyZjc2lnWEcwRQIgB3c0BvOsyJut14wj4XVWxXliicWZMZLDNF621Zz7h_8CIQCIOqRyWOazVhqlBrD-HL-83KWAvGZRgvW-4A9SE8BLFWN4NWOBWQLBMIICvTCCAaWgAwIBAgIEK_F8eDANBgkqhkiG9w0BAQsFADAuMSwwKgYDVQQDEyNZdWJpY28gVTJGIFJvb3QgQ0EgU2VyaWFsIDQ1NzIwMDYzMTAgFw0xNDA4MDEwMDAwMDBaGA8yMDUwMDkwNDAwMDAwMFowbjELMAkGA1UEBhMCU0UxEjAQBgNVBAoMCVl1YmljbyBBQjEiMCAGA1UECwwZQXV0aGVudGljYXRvciBBdHRlc3RhdGlvbjEnMCUGA1UEAwweWXViaWNvIFUyRiBFRSBTZXJpYWwgNzM3MjQ2MzI4MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEdMLHhCPIcS6bSPJZWGb8cECuTN8H13fVha8Ek5nt-pI8vrSflxb59Vp4bDQlH8jzXj3oW1ZwUDjHC6EnGWB5i6NsMGowIgYJKwYBBAGCxAoCBBUxLjMuNi4xLjQuMS40MTQ4Mi4xLjcwEwYLKwYBBAGC5RwCAQEEBAMCAiQwIQYLKwYBBAGC5RwBAQQEEgQQxe9V_62aS5-1gK3rr-Am0DAMBgNVHRMBAf8EAjAAMA0GCSqGSIb3DQEBCwUAA4IBAQCLbpN2nXhNbunZANJxAn_Cd-S4JuZsObnUiLnLLS0FPWa01TY8F7oJ8bE-aFa4kTe6NQQfi8-yiZrQ8N-JL4f7gNdQPSrH-r3iFd4SvroDe1jaJO4J9LeiFjmRdcVa-5cqNF4G1fPCofvw9W4lKnObuPakr0x_icdVq1MXhYdUtQk6Zr5mBnc4FhN9qi7DXqLHD5G7ZFUmGwfIcD2-0m1f1mwQS8yRD5-_aDCf3vutwddoi3crtivzyromwbKklR4qHunJ75LGZLZA8pJ_mXnUQ6TTsgRqPvPXgQPbSyGMf2z_DIPbQqCD_Bmc4dj9o6LozheBdDtcZCAjSPTAd_uiaGF1dGhEYXRhWOFJlg3liA6MaHQ0Fw9kdmBbj-SuuaKGMseZXPO6gx2XY0EAAAACxe9V_62aS5-1gK3rr-Am0ACAWlHiMqH6UhUs-d43z-aGlE3nsXuEOQpa9P9pwpqb4tmvtBMBfGvAV2wUrqBCDENjkkxd6kIRzZQKcluyOFlyW_vXVZSAEgod1xj-1QmFpuwyBVnlkQGefRbmUjbEt5iE4q3tdjy65EWIekO0SNjCQx3LxIJMzi25fgUkI9Y-gg2kAQEDJyAGIVggnB_oUZDQU0esRlNPmjEO96aMDTgs34D8Dv31tAwhUZo",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiN0pVQmpXWkZkRm96dWx4YjcxRHZIa2gzUDZXS1VHNEVsVW83d0VrS2ljMkpFVEpNQUlLQ2Y3ckJFOVlrc0k1b05qRHpRNkhxaDZFNzNPeTZTUGNNbnciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            challenge: "7JUBjWZFdFozulxb71DvHkh3P6WKUG4ElUo7wEkKic2JETJMAIKCf7rBE9YksI5oNjDzQ6Hqh6E73Oy6SPcMnw", format: "packed",
            trust: .unverifiedCertificate, algorithm: .eddsa, signCount: 2),
    ]

    func response(_ vector: Registration) -> RelyingParty.RegistrationResponse {
        .init(clientDataJSON: Self.bytes(vector.clientDataJSON), attestationObject: Self.bytes(vector.attestationObject), transports: ["usb", "nfc"])
    }

    @Test("recorded registrations verify", arguments: registrations)
    func registration(_ vector: Registration) async throws {
        let verified = try await party.verifyRegistration(response(vector), challenge: Self.bytes(vector.challenge), userVerification: .preferred)
        #expect(verified.credentialID == Self.bytes(vector.credentialID))
        #expect(verified.format == vector.format)
        #expect(verified.trust == vector.trust)
        #expect(verified.publicKey.algorithm == vector.algorithm)
        #expect(verified.signCount == vector.signCount)
        #expect(verified.transports == ["usb", "nfc"])
    }

    @Test("the none vector's credential public key is the one py_webauthn reads")
    func noneVectorKey() async throws {
        let vector = Self.registrations[0]
        let verified = try await party.verifyRegistration(response(vector), challenge: Self.bytes(vector.challenge), userVerification: .preferred)
        #expect(
            verified.publicKey.encoded
                == Self.bytes("pQECAyYgASFYIEhW1CRfuNlIN6XTPKw0RbvzeaIlRMrDwwep-uq_-3WQIlgg1FZwd_RZRsqS_qgKCDvcVh7ScoKNo3w5h5fv3ihUSww"))
        #expect(verified.aaguid == [UInt8](repeating: 0, count: 16))
    }

    @Test("tampered recordings are refused: another format, another challenge, another origin, a flipped signature byte", arguments: registrations)
    func tamperedRegistration(_ vector: Registration) async throws {
        let original = response(vector)
        let object = try CBOR.decode(original.attestationObject)
        func replacing(_ key: String, with value: CBOR) -> [UInt8] {
            CBOR.map((object.mapValue ?? []).map { $0.key == .text(key) ? CBOR.Entry($0.key, value) : $0 }).encoded
        }
        let otherFormat = RelyingParty.RegistrationResponse(
            clientDataJSON: original.clientDataJSON, attestationObject: replacing("fmt", with: .text("not_real_fmt")))
        var statement = try #require(object["attStmt"]?.mapValue)
        if let index = statement.firstIndex(where: { $0.key == .text("sig") }), var signature = statement[index].value.bytesValue {
            signature[signature.count / 2] ^= 0x01
            statement[index] = CBOR.Entry(.text("sig"), .bytes(signature))
        }
        let flipped = RelyingParty.RegistrationResponse(clientDataJSON: original.clientDataJSON, attestationObject: replacing("attStmt", with: .map(statement)))
        let otherOrigin = RelyingParty(id: "localhost", origins: ["http://localhost:5001"])
        await #expect(throws: WebAuthnError.self) {
            try await party.verifyRegistration(otherFormat, challenge: Self.bytes(vector.challenge), userVerification: .preferred)
        }
        await #expect(throws: WebAuthnError.self) {
            try await party.verifyRegistration(original, challenge: Array(Self.bytes(vector.challenge).reversed()), userVerification: .preferred)
        }
        await #expect(throws: WebAuthnError.self) {
            try await otherOrigin.verifyRegistration(original, challenge: Self.bytes(vector.challenge), userVerification: .preferred)
        }
        if vector.format == "packed" {
            await #expect(throws: WebAuthnError.self) {
                try await party.verifyRegistration(flipped, challenge: Self.bytes(vector.challenge), userVerification: .preferred)
            }
        }
    }

    struct Assertion: Sendable, CustomStringConvertible {
        let name: String
        let credentialID: String
        let authenticatorData: String
        let clientDataJSON: String
        let signature: String
        let userHandle: String?
        let challenge: String
        let publicKey: String
        let storedCount: UInt32
        let newCount: UInt32
        let verification: RelyingParty.UserVerification
        var description: String { name }
    }

    static let assertions: [Assertion] = [
        Assertion(
            name: "EC2 key (test_verify_authentication_response_with_EC2_public_key)",
            credentialID: "EDx9FfAbp4obx6oll2oC4-CZuDidRVV4gZhxC529ytlnqHyqCStDUwfNdm1SNHAe3X5KvueWQdAX3x9R1a2b9Q",
            authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAATg",
            clientDataJSON:
                "eyJjaGFsbGVuZ2UiOiJ4aTMwR1BHQUZZUnhWRHBZMXNNMTBEYUx6VlFHNjZudi1fN1JVYXpIMHZJMll2RzhMWWdERW52TjVmWlpOVnV2RUR1TWk5dGUzVkxxYjQyTjBma0xHQSIsImNsaWVudEV4dGVuc2lvbnMiOnt9LCJoYXNoQWxnb3JpdGhtIjoiU0hBLTI1NiIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6NTAwMCIsInR5cGUiOiJ3ZWJhdXRobi5nZXQifQ",
            signature: "MEUCIGisVZOBapCWbnJJvjelIzwpixxIwkjCCb5aCHafQu68AiEA88v-2pJNNApPFwAKFiNuf82-2hBxYW5kGwVweeoxCwo", userHandle: nil,
            challenge: "xi30GPGAFYRxVDpY1sM10DaLzVQG66nv-_7RUazH0vI2YvG8LYgDEnvN5fZZNVuvEDuMi9te3VLqb42N0fkLGA",
            publicKey: "pQECAyYgASFYIIeDTe-gN8A-zQclHoRnGFWN8ehM1b7yAsa8I8KIvmplIlgg4nFGT5px8o6gpPZZhO01wdy9crDSA_Ngtkx0vGpvPHI",
            storedCount: 77, newCount: 78, verification: .preferred),
        Assertion(
            name: "RSA key, user verified (test_verify_authentication_response_with_RSA_public_key)",
            credentialID: "ZoIKP1JQvKdrYj1bTUPJ2eTUsbLeFkv-X5xJQNr4k6s", authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiaVBtQWkxUHAxWEw2b0FncTNQV1p0WlBuWmExekZVRG9HYmFRMF9LdlZHMWxGMnMzUnRfM280dVN6Y2N5MHRtY1RJcFRUVDRCVTFULUk0bWFhdm5kalEiLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            signature:
                "iOHKX3erU5_OYP_r_9HLZ-CexCE4bQRrxM8WmuoKTDdhAnZSeTP0sjECjvjfeS8MJzN1ArmvV0H0C3yy_FdRFfcpUPZzdZ7bBcmPh1XPdxRwY747OrIzcTLTFQUPdn1U-izCZtP_78VGw9pCpdMsv4CUzZdJbEcRtQuRS03qUjqDaovoJhOqEBmxJn9Wu8tBi_Qx7A33RbYjlfyLm_EDqimzDZhyietyop6XUcpKarKqVH0M6mMrM5zTjp8xf3W7odFCadXEJg-ERZqFM0-9Uup6kJNLbr6C5J4NDYmSm3HCSA6lp2iEiMPKU8Ii7QZ61kybXLxsX4w4Dm3fOLjmDw",
            userHandle: "T1RWa1l6VXdPRFV0WW1NNVlTMDBOVEkxTFRnd056Z3RabVZpWVdZNFpEVm1ZMk5p",
            challenge: "iPmAi1Pp1XL6oAgq3PWZtZPnZa1zFUDoGbaQ0_KvVG1lF2s3Rt_3o4uSzccy0tmcTIpTTT4BU1T-I4maavndjQ",
            publicKey:
                "pAEDAzkBACBZAQDfV20epzvQP-HtcdDpX-cGzdOxy73WQEvsU7Dnr9UWJophEfpngouvgnRLXaEUn_d8HGkp_HIx8rrpkx4BVs6X_B6ZjhLlezjIdJbLbVeb92BaEsmNn1HW2N9Xj2QM8cH-yx28_vCjf82ahQ9gyAr552Bn96G22n8jqFRQKdVpO-f-bvpvaP3IQ9F5LCX7CUaxptgbog1SFO6FI6ob5SlVVB00lVXsaYg8cIDZxCkkENkGiFPgwEaZ7995SCbiyCpUJbMqToLMgojPkAhWeyktu7TlK6UBWdJMHc3FPAIs0lH_2_2hKS-mGI1uZAFVAfW1X-mzKL0czUm2P1UlUox7IUMBAAE",
            storedCount: 0, newCount: 1, verification: .required),
        Assertion(
            name: "OKP key, Ed25519 (test_verify_authentication_response_with_OKP_public_key)",
            credentialID:
                "fq9Nj0nS24B5y6Pkw_h3-9GEAEA3-0LBPxE2zvTdLjDqtSeCSNYFe9VMRueSpAZxT3YDc6L1lWXdQNwI-sVNYrefEcRR1Nsb_0jpHE955WEtFud2xxZg3MvoLMxHLet63i5tajd1fHtP7I-00D6cehM8ZWlLp2T3s9lfZgVIFcA",
            authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAABw",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiZVo0ZWVBM080ank1Rkl6cURhU0o2SkROR3UwYkJjNXpJMURqUV9rTHNvMVdOcWtHNms1bUNZZjFkdFFoVlVpQldaV2xaa3pSNU1GZWVXQ3BKUlVOWHciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            signature: "RRWV8mYDRvK7YdQgdtZD4pJ2dh1D_IWZ_D6jsZo6FHJBoenbj0CVT5nA20vUzlRhN4R6dOEUHmUwP1F8eRBhBg", userHandle: nil,
            challenge: "eZ4eeA3O4jy5FIzqDaSJ6JDNGu0bBc5zI1DjQ_kLso1WNqkG6k5mCYf1dtQhVUiBWZWlZkzR5MFeeWCpJRUNXw",
            publicKey: "pAEBAycgBiFYIMz6_SUFLiDid2Yhlq0YboyJ-CDrIrNpkPUGmJp4D3Dp", storedCount: 3, newCount: 7, verification: .preferred),
        Assertion(
            name: "EC2 key, one of several origins (test_supports_multiple_expected_origins)",
            credentialID:
                "AXmOjWWZH67pgl5_gAbKVBqoL2dyHHGEWZLspIsCwULG0hZ3HyuGgvkaRcSOLq9W72XtegcvFYXIdlafrilbtVnx2Q14gNbfSQQP2sgNEAif4MjHtGpeVB0BfFawCs85Y3XY_j4sxthVnyTY_Q",
            authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFYN-Mog",
            clientDataJSON:
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiNnpyU1JYOEN4d1BTWEVBclh5WEwydHBiNnJCN1N0YXIwckxWSWo1cnZmNzRtWktGNWlyNzE1WG1nejV0QV9HeUhleE40b1hmclE4ODlBclZDTGFSZEEiLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9",
            signature: "MEUCIQDBqeI274exaKWGQz37g7yo1--TVcZSCcYVftZ1AnEJkQIgNw-nlx-_U9rVfFfER8oX6BlYZTuPFyGaL_wCDY23s0E",
            userHandle: "TldNMFlqYzNOVFF0WW1NNE5DMDBaakprTFRrME9EVXROR05rTnpreVkyTTROVEUz",
            challenge: "6zrSRX8CxwPSXEArXyXL2tpb6rB7Star0rLVIj5rvf74mZKF5ir715Xmgz5tA_GyHexN4oXfrQ889ArVCLaRdA",
            publicKey: "pQECAyYgASFYIFm1Py-FzzFOuwXbRbTr95SiDxuB1BkZsEEJxFhquzqkIlggL1U1T713Jo_2muzhXvpbwRNdoAs8CYK6PflvY1MBdCI",
            storedCount: 1_625_263_263, newCount: 1_625_263_266, verification: .preferred),
    ]

    func response(_ vector: Assertion) -> RelyingParty.AssertionResponse {
        .init(
            credentialID: Self.bytes(vector.credentialID), clientDataJSON: Self.bytes(vector.clientDataJSON),
            authenticatorData: Self.bytes(vector.authenticatorData), signature: Self.bytes(vector.signature),
            userHandle: vector.userHandle.map(Self.bytes))
    }

    @Test("recorded assertions verify with their keys and counters", arguments: assertions)
    func assertion(_ vector: Assertion) throws {
        let key = try COSEPublicKey(encoded: Self.bytes(vector.publicKey))
        let verified = try party.verifyAssertion(
            response(vector), challenge: Self.bytes(vector.challenge), publicKey: key, storedSignCount: vector.storedCount,
            userVerification: vector.verification)
        #expect(verified.signCount == vector.newCount)
        // The same recording is refused once its counter has been seen.
        #expect(throws: WebAuthnError.self) {
            try party.verifyAssertion(
                response(vector), challenge: Self.bytes(vector.challenge), publicKey: key, storedSignCount: vector.newCount,
                userVerification: vector.verification)
        }
    }

    @Test("a recorded assertion checked with another credential's key is refused (test_raises_exception_on_incorrect_public_key)")
    func incorrectPublicKey() throws {
        let assertion = RelyingParty.AssertionResponse(
            credentialID: Self.bytes("FviUBZA3FGMxEm3A1K2T8MhuEBLp4qQsV9ScAKYrpdw2kbGnqx24tF4ev6PEHEYC3g8z6HMJh7dYHe3Uuq7_8Q"),
            clientDataJSON: Self.bytes(
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoienNmaU1aajE2VFVWQ3JUNXREUllYZFlsVXJKcDd6bl9VTmQ1Tm1Cb2NQYzRJMmRLWmJlRVdwd0JBd0E0czZvSGtWWDZfbHlfamdwNzQzZHlpV0hZWXciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9"),
            authenticatorData: Self.bytes("SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAJA"),
            signature: Self.bytes("MEQCIBX9B1LaLaQ0LYJsRv7cOyMS-Do1rJfFJoF9oO1tHMA4AiBRKdNneMKPlN53i8uoTZ5y9Gj4ORZySmiercS38655_g"), userHandle: nil)
        let rsaKey = try COSEPublicKey(encoded: Self.bytes(Self.assertions[1].publicKey))
        #expect(throws: WebAuthnError(.invalidSignature, "the assertion's signature does not verify with the credential's key")) {
            try party.verifyAssertion(
                assertion, challenge: Self.bytes("zsfiMZj16TUVCrT5tDRYXdYlUrJp7zn_UNd5NmBocPc4I2dKZbeEWpwBAwA4s6oHkVX6_ly_jgp743dyiWHYYw"),
                publicKey: rsaKey, storedSignCount: 35, userVerification: .required)
        }
    }

    @Test("a recorded assertion without user verification is refused where it is required (test_raises_exception_on_uv_required_but_false)")
    func userVerificationRequired() throws {
        let assertion = RelyingParty.AssertionResponse(
            credentialID: Self.bytes("4-5MZF69j3n2B6Z99dUN0fNrAQmrjELJIebWVw8aKfw1EQKg28Tx40R_kw-1pcrfSgJFKm3mCtAtBgSRWgDMng"),
            clientDataJSON: Self.bytes(
                "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoidW1HZW1YSklQQlhQeGtEOEhqYW51djlCRG9yOFo3TzNhUGR0T2dNQ2RXNFBBZnFEWDQzRUZsaHJzRjBQVzkwZGY1enJnYnQ3WVZNUkFhMjd0Q2RIenciLCJvcmlnaW4iOiJodHRwOi8vbG9jYWxob3N0OjUwMDAiLCJjcm9zc09yaWdpbiI6ZmFsc2V9"),
            authenticatorData: Self.bytes("SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAAIQ"),
            signature: Self.bytes("MEUCIGp5ADnU_SFvT4J_bKvQJ4Pc1GmANhbYq5GioOLjyUrxAiEA6Kk5qAZb8MLY-jyTiJLr_R9Fke02UHkxsRB0dnZt2X8"), userHandle: nil)
        let key = try COSEPublicKey(
            encoded: Self.bytes("pQECAyYgASFYIOQ5TKpXJR2cV76Wgfge9BkLkEhLxVjhFjM1jKHYOcqpIlggaiNy1blt3OU8Hsmg041HUYP7eajgL7fk3nSuTEjYCwU"))
        let challenge = Self.bytes("umGemXJIPBXPxkD8Hjanuv9BDor8Z7O3aPdtOgMCdW4PAfqDX43EFlhrsF0PW90df5zrgbt7YVMRAa27tCdHzw")
        #expect(throws: WebAuthnError.self) {
            try party.verifyAssertion(assertion, challenge: challenge, publicKey: key, storedSignCount: 32, userVerification: .required)
        }
        // Where it is only preferred, the same recording verifies.
        #expect(try party.verifyAssertion(assertion, challenge: challenge, publicKey: key, storedSignCount: 32, userVerification: .preferred).signCount == 33)
    }
}
