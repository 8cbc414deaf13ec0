import asyncio

async def main():
    t = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0)
    t.cancel()
    await t

asyncio.run(main())
