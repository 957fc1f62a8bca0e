import Foundation
import Testing

@testable import TesseraDomain

@Suite("An authorization request from its parameters")
struct AuthorizationRequestTests {
    @Test("every coding key has its field, once")
    func everyKey() {
        let names = AuthorizationRequest.fields.map(\.name)
        #expect(Set(names) == Set(AuthorizationRequest.CodingKeys.allCases.map(\.rawValue)))
        #expect(names.count == AuthorizationRequest.CodingKeys.allCases.count)
    }

    @Test("read field by field, a request is what its parameters' JSON decodes to, and gives back the parameters JSON does")
    func sameAsJSON() throws {
        let known = AuthorizationRequest.CodingKeys.allCases.map(\.rawValue)
        let names = known + ["unknown", "client", "Scope", ""]
        let values = ["", "x", "a b", "é€", "{\"a\":1}", "https://app.example/cb?x=1&y=2"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var parameters: [String: String] = [:]
            for name in names where Bool.random(using: &generator) { parameters[name] = values.randomElement(using: &generator)! }
            let request = AuthorizationRequest(parameters: parameters)
            let decoded = try JSONDecoder().decode(AuthorizationRequest.self, from: try JSONEncoder().encode(parameters))
            #expect(request == decoded)
            let viaJSON = try JSONDecoder().decode([String: String].self, from: try JSONEncoder().encode(request))
            #expect(request.parameters == viaJSON)
            #expect(request.parameters == parameters.filter { known.contains($0.key) })
        }
    }
}
