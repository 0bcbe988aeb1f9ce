"""The prop's hardware: gpiozero inputs and lights, luma displays, the 40-pin header.

Everything here takes plain values (pin numbers, times, callbacks, display
specs) and knows nothing of the config file, the game or the network.
"""
