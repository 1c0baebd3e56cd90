import FuzzSupport

runLibFuzzer(fuzz)
