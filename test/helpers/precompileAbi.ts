// The staking-side precompiles as the integration tests call them: their addresses and the ABI each exposes, written
// out from the precompiles' Solidity interfaces (independently of src/app/staking/precompiles, which they check).
import { Interface } from 'ethers';

export const STAKING = '0x0000000000000000000000000000000000000800';
export const DISTRIBUTION = '0x0000000000000000000000000000000000000801';
export const BANK = '0x0000000000000000000000000000000000000804';
export const SLASHING = '0x0000000000000000000000000000000000000806';
export const BECH32 = '0x0000000000000000000000000000000000000400';

const DESC = 'tuple(string moniker,string identity,string website,string securityContact,string details)';
const VALIDATOR =
  'tuple(string operatorAddress,string consensusPubkey,bool jailed,uint8 status,uint256 tokens,uint256 delegatorShares,' +
  `${DESC} description,int64 unbondingHeight,int64 unbondingTime,uint256 commission,uint256 minSelfDelegation)`;
const DEC_COINS = 'tuple(string denom,uint256 amount,uint8 precision)[]';

/** The staking precompile (0x…0800): transactions, views and the events the tests read. */
export const stakingAbi = new Interface([
  `function createValidator(${DESC} description, tuple(uint256 rate,uint256 maxRate,uint256 maxChangeRate) commissionRates, uint256 minSelfDelegation, address validatorAddress, string pubkey, uint256 value) returns (bool)`,
  'function delegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (bool)',
  'function undelegate(address delegatorAddress, string validatorAddress, uint256 amount) returns (int64)',
  `function validator(address validatorAddress) view returns (${VALIDATOR})`,
  'function delegation(address delegatorAddress, string validatorAddress) view returns (uint256 shares, tuple(string denom,uint256 amount) balance)',
  'function unbondingDelegation(address delegatorAddress, string validatorAddress) view returns (tuple(string delegatorAddress,string validatorAddress,tuple(int64 creationHeight,int64 completionTime,uint256 initialBalance,uint256 balance,uint64 unbondingId,int64 unbondingOnHoldRefCount)[] entries))',
  'event CreateValidator(address indexed validatorAddress, uint256 value)',
  'event Delegate(address indexed delegatorAddress, address indexed validatorAddress, uint256 amount, uint256 newShares)',
]);

/** The distribution precompile (0x…0801): its views. */
export const distributionAbi = new Interface([
  'function delegatorValidators(address delegatorAddress) view returns (string[])',
  `function delegationRewards(address delegatorAddress, string validatorAddress) view returns (${DEC_COINS})`,
  `function delegationTotalRewards(address delegatorAddress) view returns (tuple(string validatorAddress, ${DEC_COINS} reward)[] rewards, ${DEC_COINS} total)`,
  `function validatorCommission(string validatorAddress) view returns (${DEC_COINS})`,
  `function validatorOutstandingRewards(string validatorAddress) view returns (${DEC_COINS})`,
  `function communityPool() view returns (${DEC_COINS})`,
]);

/** The slashing precompile (0x…0806): a validator's signing info. */
export const slashingAbi = new Interface([
  'function getSigningInfo(address consAddress) view returns (tuple(address validatorAddress,int64 startHeight,int64 indexOffset,int64 jailedUntil,bool tombstoned,int64 missedBlocksCounter))',
]);

/** The bank precompile (0x…0804). */
export const bankAbi = new Interface([
  'function totalSupply() view returns (tuple(address contractAddress,uint256 amount)[])',
]);

/** The bech32 precompile (0x…0400). */
export const bech32Abi = new Interface([
  'function hexToBech32(address addr, string prefix) returns (string)',
  'function bech32ToHex(string bech32Address) returns (address)',
]);
