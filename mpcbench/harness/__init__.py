"""`mpcbench eval`: run agents on instances, journal every episode, write the result tables."""
