module Shop.Util (logMsg, twice) where

logMsg :: String -> IO ()
logMsg s = putStrLn (prefix s)

prefix :: String -> String
prefix s = "[shop] " ++ s

twice :: Int -> Int
twice x = x * 2
