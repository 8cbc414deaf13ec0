import asyncio

async def main():
    asyncio.get_event_loop().run_until_complete(asyncio.sleep(0))

asyncio.run(main())
