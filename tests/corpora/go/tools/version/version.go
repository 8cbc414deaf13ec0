// Package version says which version the tools are.
package version

// String is the version.
func String() string {
	return "1.0"
}
