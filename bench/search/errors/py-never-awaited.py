import asyncio

async def fetch():
    return 1

async def main():
    fetch()

asyncio.run(main())
