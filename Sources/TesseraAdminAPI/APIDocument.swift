/// The OpenAPI document of the admin and device API, as written in `openapi.yaml`.
public enum APIDocument {
    /// The document's YAML text.
    public static var yaml: String { String(decoding: PackageResources.openapi_yaml, as: UTF8.self) }
}
