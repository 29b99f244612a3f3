"""`mpcbench report`: load runs, compute the tables and statistics, draw the plots, render Markdown and HTML."""
