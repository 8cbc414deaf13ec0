// A module of its own inside the shop's repository.
module "example.com/shoptools" // quoted, as go mod edit may write it

go 1.22
