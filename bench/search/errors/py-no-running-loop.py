import asyncio

async def work():
    pass

asyncio.create_task(work())
