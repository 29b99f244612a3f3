from .cli import main

if __name__ == "__main__":  # worker processes (spawn) import this module without running it
    main()
