// A libFuzzer target for the CBOR decoder (Sources/TesseraCrypto/WebAuthn/CBOR.swift), built
// by scripts/fuzz.sh with `swiftc -sanitize=fuzzer,address` together with that file alone
// (it imports nothing). Every input is decoded; the decoder must refuse it or read one
// item, never crash or read out of bounds, and what it reads must encode canonically and
// read back to the same encoding. Authenticators' attestation objects and COSE keys are
// read with this decoder before anything else looks at them.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The prefix reader sees the same item whatever follows it.
    let prefix = try? CBOR.decodePrefix(bytes[...])
    guard let item = try? CBOR.decode(bytes) else {
        if let prefix { precondition(prefix.length < bytes.count, "a whole input refused that its prefix reader read whole") }
        return 0
    }
    precondition(prefix?.length == bytes.count, "the prefix reader took \(String(describing: prefix?.length)) of \(bytes.count) bytes")
    let encoded = item.encoded
    let again: CBOR
    do {
        again = try CBOR.decode(encoded)
    } catch {
        preconditionFailure("the canonical encoding of a decoded item does not decode: \(error)")
    }
    precondition(again.encoded == encoded, "the canonical encoding is not stable")
    return 0
}
