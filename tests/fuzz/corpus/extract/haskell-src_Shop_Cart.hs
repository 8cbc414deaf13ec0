module Shop.Cart (Cart, empty, add, total, apply) where

import qualified Data.Map as Map
import Shop.Item
import qualified Shop.Util as U

newtype Cart = Cart [Item]

empty :: Cart
empty = Cart []

add :: Cart -> Item -> Cart
add (Cart xs) it = Cart (it : xs)

total :: Cart -> Int
total (Cart xs) = sum (map cost xs) + U.twice (count xs)
  where
    count ys = length ys

byPrice :: Cart -> Map.Map Int Item
byPrice (Cart xs) = Map.fromList [(price x, x) | x <- xs]

apply :: (Int -> Int) -> Int -> Int
apply f x = f x

firstCost :: Cart -> Int
firstCost (Cart (x : _)) = cost x
firstCost (Cart []) = apply double 0
  where
    double = (* 2)
