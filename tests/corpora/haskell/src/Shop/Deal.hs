-- Instances for qualified types, operators the module defines and
-- calls, and a name its export list passes on from an import.
module Shop.Deal (Deal (..), (<+>), twice, bundle) where

import qualified Shop.Cart as C
import Shop.Item
import Shop.Util

data Deal = Deal Int

instance Priced C.Cart where
  cost c = twice (C.total c)

instance Semigroup Deal where
  Deal a <> Deal b = Deal (best a b)
    where
      best x y = max x y

infixl 6 <+>

(<+>) :: C.Cart -> Item -> C.Cart
c <+> it = C.add c it

(<->) :: Int -> Int -> Int
(<->) a b = a - b

bundle :: Item -> Item -> C.Cart
bundle a b = C.empty <+> a <+> b

discount :: Int -> Int
discount p = p <-> 1

parsePrice :: String -> Int
parsePrice s = let p = discount (read s) :: Int in p

bothPrices :: Applicative f => String -> f Int
bothPrices s = pure (parsePrice s) :: f Int
