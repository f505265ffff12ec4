// The ui library's sources arrive with the main window; this keeps the target non-empty until then.
namespace attnlab::ui {
int uiLibraryVersion() { return 1; }
}  // namespace attnlab::ui
