package shop

import (
	"errors"
	"strings"
)

type Item struct{ Name string }

type Pricer interface{ Price() int }

type Cart struct{ items []Item }

func (c *Cart) Add(it Item) { c.items = append(c.items, it) }

func (c *Cart) Len() int { return len(c.items) }

func (i Item) Price() int { return len(i.Name) }

func (i Item) Error() string { return i.Name }

func NewCart() *Cart { return &Cart{} }

func Total(c *Cart, p Pricer, err error, f func() int) int {
	c.Add(Item{Name: strings.ToUpper("a")})
	n := c.
		Len()
	n += p.Price()
	if err != nil {
		_ = err.Error()
		_ = errors.New("x")
	}
	return n + f() + NewCart().Len()
}
