-- The package's front module: it passes on Shop.Util whole and the
-- name it imports from Shop.Cart, and keeps Legacy.Item to itself.
module Shop (module Shop.Util, module C, summary) where

import Shop.Util
import Shop.Cart as C (total)
import Legacy.Item

summary :: Int -> String
summary n = describe n
