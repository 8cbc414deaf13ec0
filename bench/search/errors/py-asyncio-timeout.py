import asyncio

async def main():
    await asyncio.wait_for(asyncio.sleep(1), timeout=0.01)

asyncio.run(main())
