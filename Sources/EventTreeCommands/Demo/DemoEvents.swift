import EventTree

/// Events the built-in demo app raises.
protocol Trackable: Event {}

struct PostLiked: Trackable { var post: String }
struct ButtonTapped: Event { var button: String }
struct OpenURL: Trackable { var url: String }
struct ThemeChanged: Event { var theme: String }
struct CloseScreen: Event {}
struct Refresh: Event {}
struct ShowBanner: Event { var text: String }
/// Carries credentials, which the journal's default deny-list redacts.
struct SignIn: Event {
    var user: String
    var password: String
    var token: String
}
struct CurrentUser: EventRequest { typealias Answer = String }
struct UnreadCount: EventRequest { typealias Answer = Int }

struct RenderError: Error, CustomStringConvertible {
    var view: String
    var description: String { "cannot render \(view) in the new theme" }
}

struct SyncFailed: Error, CustomStringConvertible {
    var reason: String
    var description: String { "sync failed: \(reason)" }
}
