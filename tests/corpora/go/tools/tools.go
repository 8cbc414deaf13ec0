// Package shoptools is the root package of a nested module.
package shoptools

import "example.com/shoptools/version"

// Banner names the tools and their version.
func Banner() string {
	return "shoptools " + version.String()
}
