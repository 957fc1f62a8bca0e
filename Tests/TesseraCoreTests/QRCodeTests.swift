import Foundation
import Testing
import TesseraCore
import TesseraTesting

@Suite("QR codes decode with zbarimg")
struct QRCodeTests {
    static let samples = [
        "A",
        "http://127.0.0.1:8080/t/demo/authenticate?request=Zm9vYmFyYmF6cXV4cXV1eA",
        "https://login.example.com/t/acme-corporation/activate?code=Q2hhbGxlbmdlLXZhbHVlLXRoYXQtaXMtbG9uZ2VyLXRoYW4tZXhwZWN0ZWQ",
        String(repeating: "tessera-", count: 26),
    ]

    @Test("every version up to 10 round-trips through zbarimg", arguments: samples)
    func roundTrip(text: String) async throws {
        let code = try QRCode(text)
        let decoded = try await ZBar.decode(code.pgm(scale: 4))
        #expect(decoded == text)
    }

    @Test("versions grow with the payload and stop at 10")
    func versions() throws {
        #expect(try QRCode("A").version == 1)
        #expect(try QRCode(String(repeating: "x", count: 100)).version > 4)
        #expect(throws: QRCode.EncodingError.self) { try QRCode(String(repeating: "x", count: 300)) }
    }
}
