package shoptools_test

import (
	"testing"

	"example.com/shoptools"
)

func TestBanner(t *testing.T) {
	if shoptools.Banner() == "" {
		t.Fatal("no banner")
	}
}
